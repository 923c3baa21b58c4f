// Sources of the pfc_rx top (read by CMake, cocotb and scripts/lint.sh).
+incdir+../common  // syncfab_assert.svh
pfc_rx.sv
