// Functional cover points of nic_top: bind modules, read after nic_top.f by
// the coverage tree only (SYNCFAB_COVERAGE; scripts/cmake/SyncfabVerilator.cmake).
+incdir+../common  // syncfab_assert.svh
damq_fcov.sv
pfc_rx_fcov.sv
nic_of_fcov.sv
nic_se_fcov.sv
nic_te_fcov.sv
nic_ge_fcov.sv
nic_cq_fcov.sv
