// Sources of the nic_te top (TE: sends, ACK/NACK matching, retries, done).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
../common/damq.sv
../common/rr_arbiter.sv
../common/stream_arbiter.sv
nic_te.sv
