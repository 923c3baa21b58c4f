// Sources of nic_dcqcn_sender (the bulk sender's transmit side) as a top of its own: lint at its
// default parameters.
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
nic_dcqcn_sender.sv
