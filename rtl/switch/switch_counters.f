// Sources of the switch_counters top (read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f  // sw_counter_e
+incdir+../common  // syncfab_assert.svh
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_pkg.sv  // switch_pkg's field widths
+incdir+.  // switch_types.svh
switch_pkg.sv
switch_counters.sv
