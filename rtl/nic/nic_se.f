// Sources of the nic_se top (SE + request DAMQ, the engine's receive side).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
../common/damq.sv
../common/sync_fifo.sv
nic_req_damq.sv
nic_se.sv
