// Sources of the nic_of top (OF: HDQ, SDQ fetch, validation, dispatch).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
../common/sync_fifo.sv
nic_of.sv
