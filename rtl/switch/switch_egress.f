// Sources of the switch_egress top (one output port; read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_pkg.sv  // switch_pkg's field widths
+incdir+.  // switch_types.svh
switch_pkg.sv
../common/rr_pick.sv
-F sp_wdrr_sched.f
-F pfc_tx.f
-F pfc_rx.f
-F pfc_watchdog.f
switch_egress.sv
