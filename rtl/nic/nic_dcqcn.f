// Sources of nic_dcqcn (the NIC's data path: register block, flow table,
// reaction point, bulk sender, receive side, notification point).
-F ../spec/syncfab_fmt_pkg.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
${SYNCFAB_GEN}/nic_dcqcn/nic_dcqcn_reg_pkg.sv
${SYNCFAB_GEN}/nic_dcqcn/nic_dcqcn_reg_addr_pkg.sv
${SYNCFAB_GEN}/nic_dcqcn/nic_dcqcn_reg_top.sv
../common/apb_checker.sv
../common/apb_unaligned_guard.sv
nic_dcqcn_csr.sv
nic_dcqcn_flows.sv
nic_dcqcn_rp.sv
nic_dcqcn_sender.sv
nic_dcqcn_rx.sv
nic_dcqcn_np.sv
nic_dcqcn.sv
