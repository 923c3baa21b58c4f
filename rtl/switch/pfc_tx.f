// Sources of the pfc_tx top (read by CMake, cocotb and scripts/lint.sh).
+incdir+../common  // syncfab_assert.svh
pfc_tx.sv
