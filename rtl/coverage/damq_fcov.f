// Sources of the bind module damq_fcov: the module it binds into (damq) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../common/damq.f
damq_fcov.sv
