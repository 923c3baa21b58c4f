// Sources of the bind module wred_ecn_fcov: the module it binds into (wred_ecn) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../switch/wred_ecn.f
wred_ecn_fcov.sv
