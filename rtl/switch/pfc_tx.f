// Sources of the pfc_tx top (read by CMake, cocotb and scripts/lint.sh).
-F ../spec/syncfab_fmt_pkg.f  // PFC_FRAME_QUANTA_W
+incdir+../common  // syncfab_assert.svh
pfc_tx.sv
