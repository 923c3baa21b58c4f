// Sources of the ecn_dyn top (read by CMake, cocotb and scripts/lint.sh).
+incdir+../common  // syncfab_assert.svh
ecn_dyn.sv
