// Sources of the bind module switch_top_fcov: the module it binds into (switch_top) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../switch/switch_top.f
switch_top_fcov.sv
