// Sources of the stream_arbiter top (read by CMake, cocotb and scripts/lint.sh).
+incdir+.  // syncfab_assert.svh
rr_arbiter.sv
stream_arbiter.sv
