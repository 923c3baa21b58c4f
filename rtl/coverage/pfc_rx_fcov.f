// Sources of the bind module pfc_rx_fcov: the module it binds into (pfc_rx) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../switch/pfc_rx.f
pfc_rx_fcov.sv
