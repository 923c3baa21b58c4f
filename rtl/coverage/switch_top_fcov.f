// Functional cover points of switch_top: bind modules, read after
// switch_top.f by the coverage tree only (SYNCFAB_COVERAGE;
// scripts/cmake/SyncfabVerilator.cmake).
+incdir+../common  // syncfab_assert.svh
pfc_rx_fcov.sv
pfc_tx_fcov.sv
pfc_watchdog_fcov.sv
wred_ecn_fcov.sv
switch_counters_fcov.sv
switch_top_fcov.sv
