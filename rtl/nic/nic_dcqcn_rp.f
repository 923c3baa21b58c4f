// Sources of the nic_dcqcn_rp top (the DCQCN reaction point's rate law).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_dcqcn_rp.sv
