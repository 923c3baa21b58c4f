// Sources of nic_dcqcn_np (the DCQCN notification point) as a top of its own: lint at its
// default parameters.
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
nic_dcqcn_np.sv
