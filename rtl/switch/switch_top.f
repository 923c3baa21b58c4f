// Sources of switch_top (the whole switch: CSRs, tables, ingress, enqueue,
// egress, counters). The CSR block is PeakRDL's output for switch_csr.rdl
// after switch_csr_vlfix.py (see rtl/switch/CMakeLists.txt): Verilator 5.006
// cannot build regblock's register arrays as generated.
-F ../spec/syncfab_fmt_pkg.f
-F ../common/lfsr.f  // lfsr.sv and +incdir+ for syncfab_assert.svh
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_pkg.sv
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_top.sv
../common/sync_fifo.sv
switch_pkg.sv
wred_ecn.sv
sp_wdrr_sched.sv
pfc_tx.sv
pfc_rx.sv
pfc_watchdog.sv
switch_tables.sv
switch_counters.sv
switch_ingress.sv
switch_egress.sv
switch_top.sv
