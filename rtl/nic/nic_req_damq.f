// Sources of the nic_req_damq top (request DAMQ with duplicate lookup).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
../common/damq.sv
nic_req_damq.sv
