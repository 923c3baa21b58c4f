// Sources of the bind module nic_ge_fcov: the module it binds into (nic_ge) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../nic/nic_ge.f
nic_ge_fcov.sv
