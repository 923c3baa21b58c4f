// Sources of the switch_counters top (read by CMake, cocotb and scripts/lint.sh).
+incdir+../common  // syncfab_assert.svh
switch_counters.sv
