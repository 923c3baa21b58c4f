// switch_top with its functional cover points (bind modules): its sources in
// the coverage tree (SYNCFAB_COVERAGE; scripts/cmake/SyncfabVerilator.cmake)
// and what scripts/lint.sh lints as switch_top with its binds.
-F ../switch/switch_top.f
pfc_rx_fcov.sv
pfc_tx_fcov.sv
pfc_watchdog_fcov.sv
wred_ecn_fcov.sv
switch_counters_fcov.sv
switch_tables_fcov.sv
switch_top_fcov.sv
