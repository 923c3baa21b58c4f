// Sources of the switch_counters top (read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f  // sw_counter_e
+incdir+../common  // syncfab_assert.svh
switch_pkg.sv
switch_counters.sv
