// Sources of the bind module nic_te_fcov: the module it binds into (nic_te) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../nic/nic_te.f
nic_te_fcov.sv
