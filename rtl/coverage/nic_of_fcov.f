// Sources of the bind module nic_of_fcov: the module it binds into (nic_of) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../nic/nic_of.f
nic_of_fcov.sv
