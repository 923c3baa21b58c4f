// Sources of the bind module switch_counters_fcov: the module it binds into (switch_counters) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../switch/switch_counters.f
switch_counters_fcov.sv
