// Sources of the nic_mbox top (the management mailbox, docs/nic/mbox.md).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
nic_mbox.sv
