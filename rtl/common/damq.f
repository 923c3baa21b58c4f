// Sources of the damq top (read by CMake, cocotb and scripts/lint.sh).
+incdir+.  // syncfab_assert.svh
damq.sv
