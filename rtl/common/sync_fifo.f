// Sources of the sync_fifo top (read by CMake, cocotb and scripts/lint.sh).
+incdir+.  // syncfab_assert.svh
sync_fifo.sv
