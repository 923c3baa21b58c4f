// Sources of the bind module nic_cq_fcov: the module it binds into (nic_cq) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../nic/nic_cq.f
nic_cq_fcov.sv
