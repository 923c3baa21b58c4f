// Sources of nic_top (the whole NIC barrier engine: CSRs, OF, SE, TE,
// completion unit, rx demux, PFC reception, network and memory arbiters).
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
nic_top.sv
