// Sources of the switch_egress top (one output port; read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
switch_pkg.sv      // wd_state_e
sp_wdrr_sched.sv
pfc_tx.sv
pfc_rx.sv
pfc_watchdog.sv
switch_egress.sv
