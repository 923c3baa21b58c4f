// Sources of the bind module pfc_tx_fcov: the module it binds into (pfc_tx) and
// itself, which scripts/lint.sh lints it with (the coverage tree lists the
// module in <top>.cover.f).
-F ../switch/pfc_tx.f
pfc_tx_fcov.sv
