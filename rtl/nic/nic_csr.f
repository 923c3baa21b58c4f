// NIC CSR block: the register block PeakRDL generates from nic_csr.rdl (in the
// build tree, at CMake configure time) and the hand-written wrapper nic_csr.
+incdir+../common
${SYNCFAB_GEN}/nic_csr/nic_csr_reg_pkg.sv
${SYNCFAB_GEN}/nic_csr/nic_csr_reg_top.sv
nic_csr.sv
