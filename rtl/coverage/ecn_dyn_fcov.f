// Sources of the bind module ecn_dyn_fcov: the module it binds into (ecn_dyn) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../switch/ecn_dyn.f
ecn_dyn_fcov.sv
