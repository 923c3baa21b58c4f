// Sources of the bind module nic_se_fcov: the module it binds into (nic_se) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../nic/nic_se.f
nic_se_fcov.sv
