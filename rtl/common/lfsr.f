// Sources of the lfsr top (read by CMake, cocotb and scripts/lint.sh).
+incdir+.  // syncfab_assert.svh
lfsr.sv
