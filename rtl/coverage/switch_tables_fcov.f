// Sources of the bind module switch_tables_fcov: the module it binds into (switch_tables)
// and itself, which scripts/lint.sh lints it with (the coverage tree lists
// the module in <top>.cover.f).
-F ../switch/switch_tables.f
switch_tables_fcov.sv
