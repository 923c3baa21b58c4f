// Test top of the NIC CSR block: nic_csr with every field on a flat port.
-F ../../../rtl/nic/nic_csr.f
nic_csr_tb.sv
