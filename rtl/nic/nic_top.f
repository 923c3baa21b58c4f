// Sources of nic_top (the whole NIC: the barrier engine's CSRs, OF, SE, TE,
// completion unit, rx demux, PFC reception, network and memory arbiters, and
// the data path).
-F ../spec/syncfab_fmt_pkg.f
-F nic_csr.f
+incdir+../common  // syncfab_assert.svh
+incdir+.          // nic_assert.svh
nic_pkg.sv
../common/damq.sv
../common/sync_fifo.sv
../common/rr_arbiter.sv
../common/stream_arbiter.sv
nic_req_damq.sv
nic_se.sv
nic_te.sv
nic_of.sv
nic_ge.sv
nic_mbox.sv
nic_cq.sv
-F ../switch/pfc_rx.f  // the switch's pfc_rx, reused for the link's pause frames
// The data path (nic_dcqcn.f without what is listed above)
${SYNCFAB_GEN}/nic_dcqcn/nic_dcqcn_reg_pkg.sv
${SYNCFAB_GEN}/nic_dcqcn/nic_dcqcn_reg_addr_pkg.sv
${SYNCFAB_GEN}/nic_dcqcn/nic_dcqcn_reg_top.sv
nic_dcqcn_csr.sv
nic_dcqcn_flows.sv
nic_dcqcn_rp.sv
nic_dcqcn_sender.sv
nic_dcqcn_rx.sv
nic_dcqcn_np.sv
nic_dcqcn.sv
nic_top.sv
