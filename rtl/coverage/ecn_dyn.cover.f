// ecn_dyn (the block-level top of test_ecn_dyn) with its functional cover
// points (bind module): its sources in the coverage tree (SYNCFAB_COVERAGE;
// scripts/cmake/SyncfabVerilator.cmake) and what scripts/lint.sh lints as
// ecn_dyn with its bind.
-F ../switch/ecn_dyn.f
ecn_dyn_fcov.sv
