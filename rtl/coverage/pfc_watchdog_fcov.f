// Sources of the bind module pfc_watchdog_fcov: the module it binds into (pfc_watchdog) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../switch/pfc_watchdog.f
pfc_watchdog_fcov.sv
