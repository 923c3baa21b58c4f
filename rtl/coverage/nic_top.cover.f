// nic_top with its functional cover points (bind modules): its sources in
// the coverage tree (SYNCFAB_COVERAGE; scripts/cmake/SyncfabVerilator.cmake)
// and what scripts/lint.sh lints as nic_top with its binds.
-F ../nic/nic_top.f
damq_fcov.sv
pfc_rx_fcov.sv
nic_of_fcov.sv
nic_se_fcov.sv
nic_te_fcov.sv
nic_ge_fcov.sv
nic_cq_fcov.sv
