// Sources of the nic_ge top (the group engine: group barriers' members and root).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
nic_ge.sv
