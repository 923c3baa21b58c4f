// NIC CSR block: the register block PeakRDL generates from nic_csr.rdl (in the
// build tree, at CMake configure time) and the hand-written wrapper nic_csr.
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
${SYNCFAB_GEN}/nic_csr/nic_csr_reg_pkg.sv
${SYNCFAB_GEN}/nic_csr/nic_csr_reg_top.sv
../common/apb_checker.sv
../common/apb_unaligned_guard.sv
nic_csr.sv
