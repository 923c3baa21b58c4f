// Sources of switch_top (the whole switch: CSRs, tables, ingress, enqueue,
// egress, counters). The CSR block is PeakRDL's output for switch_csr.rdl
// after switch_csr_vlfix.py (see rtl/switch/CMakeLists.txt): Verilator 5.006
// cannot build regblock's register arrays as generated. Its offset package
// (field positions) is taken as generated.
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_pkg.sv
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_top.sv
${SYNCFAB_GEN}/switch_csr_vl/switch_csr_reg_addr_pkg.sv
+incdir+.  // switch_types.svh
switch_pkg.sv
../common/rr_pick.sv
../common/apb_checker.sv
../common/apb_unaligned_guard.sv
-F wred_ecn.f
-F switch_tables.f
-F switch_combine.f
-F switch_counters.f
-F switch_ingress.f
-F switch_egress.f
switch_top.sv
