// The syncfab switch (docs/switch-datapath.md): NumPorts ports, each with a
// receive and a transmit stream of flits (FLIT_BITS, from the format spec),
// and the CSR block generated from switch_csr.rdl behind an APB4 port.
//
//   rx[i] -> switch_ingress(i): checks, lookup (switch_tables), admission,
//            cell buffer, VOQ[i][o][q], occupancy -> pfc_tx(i)
//         -> enqueue engine (here): one copy per cycle, hook-flow remap,
//            WRED/ECN (one wred_ecn) with the (o, q) queue length over all inputs
//         -> switch_egress(o): pfc_rx/pfc_watchdog, SP+WDRR, input round
//            robin, copy stream, pause frames between packets -> tx[o]
//   switch_counters: port x priority x kind (sw_counter_e), CNT_SEL / CNT_VALUE.
//
// Structure and latencies are in docs/switch-datapath.md, "switch_top RTL".

`include "syncfab_assert.svh"

module switch_top
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
  import switch_csr_reg_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned LftEntries = LFT_ENTRIES,
  parameter int unsigned MftEntries = MFT_ENTRIES,
  parameter int unsigned BufCells = 256,
  localparam int unsigned CellW = $clog2(BufCells),
  localparam int unsigned CntW = $clog2(BufCells + 1),
  localparam int unsigned PortW = $clog2(NumPorts)
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,
  // APB4 completer (CSRs)
  input  logic                              psel_i,
  input  logic                              penable_i,
  input  logic                              pwrite_i,
  input  logic [2:0]                        pprot_i,
  input  logic [11:0]                       paddr_i,
  input  logic [31:0]                       pwdata_i,
  input  logic [3:0]                        pstrb_i,
  output logic [31:0]                       prdata_o,
  output logic                              pready_o,
  output logic                              pslverr_o,
  output logic                              intr_o,
  // Receive streams, one per port
  input  logic [NumPorts-1:0]               rx_valid_i,
  output logic [NumPorts-1:0]               rx_ready_o,
  input  flit_t [NumPorts-1:0]              rx_data_i,
  input  logic [NumPorts-1:0]               rx_last_i,
  // Transmit streams, one per port
  output logic [NumPorts-1:0]               tx_valid_o,
  input  logic [NumPorts-1:0]               tx_ready_i,
  output flit_t [NumPorts-1:0]              tx_data_o,
  output logic [NumPorts-1:0]               tx_last_o
);

  `SF_STATIC_ASSERT(gen_num_ports_check, NumPorts >= 2 && NumPorts <= 8)
  `SF_STATIC_ASSERT(gen_buf_cells_check, BufCells >= 2 && BufCells <= 32768)

  typedef logic [CellW-1:0] cell_t;

  // The port after p, wrapping at NumPorts.
  function automatic logic [PortW-1:0] next_port(logic [PortW-1:0] p);
    return (32'(p) == NumPorts - 1) ? '0 : p + 1'b1;
  endfunction

  // ---------------------------------------------------------------------------
  // CSRs
  // ---------------------------------------------------------------------------
  switch_csr__in_t  hwif_in;
  switch_csr__out_t hwif_out;

  switch_csr_reg_top u_csr (
    .clk(clk_i),
    .arst_n(rst_ni),
    .s_apb_psel(psel_i),
    .s_apb_penable(penable_i),
    .s_apb_pwrite(pwrite_i),
    .s_apb_pprot(pprot_i),
    .s_apb_paddr(paddr_i),
    .s_apb_pwdata(pwdata_i),
    .s_apb_pstrb(pstrb_i),
    .s_apb_pready(pready_o),
    .s_apb_prdata(prdata_o),
    .s_apb_pslverr(pslverr_o),
    .hwif_in,
    .hwif_out
  );
  assign intr_o = hwif_out.INTR_STATUS.intr;

  logic enable;
  assign enable = hwif_out.CTRL.ENABLE.value;

  // Per-port configuration, unpacked from the register struct.
  prio_mask_t [NumPorts-1:0] pfc_en, sp_mask, wd_enable, wred_en, wd_reenable;
  logic [NumPorts-1:0] wd_drop_mode;
  logic [NumPorts-1:0][NumPrio-1:0][7:0] weight, pmax;
  logic [NumPorts-1:0][NumPrio-1:0][15:0] xoff_thr, xon_thr, quanta, kmin, kmax;
  logic [NumPorts-1:0][15:0] lossy_limit;
  for (genvar n = 0; n < NumPorts; n++) begin : gen_port_cfg
    assign pfc_en[n] = hwif_out.PORT[n].PFC_EN.MASK.value;
    assign sp_mask[n] = hwif_out.PORT[n].SCHED.SP_MASK.value;
    assign wd_enable[n] = hwif_out.PORT[n].WD_CTRL.ENABLE.value;
    assign wd_drop_mode[n] = hwif_out.PORT[n].WD_CTRL.DROP_MODE.value;
    assign wred_en[n] = hwif_out.PORT[n].WRED_EN.MASK.value;
    assign lossy_limit[n] = hwif_out.PORT[n].LOSSY_LIMIT.LIMIT.value;
    assign wd_reenable[n] = (hwif_out.WD_REENABLE.GO.value &&
                             hwif_out.WD_REENABLE.PORT.value == 8'(n)) ?
                            hwif_out.WD_REENABLE.PRIO_MASK.value : '0;
    for (genvar p = 0; p < NumPrio; p++) begin : gen_prio_cfg
      assign weight[n][p] = (p % 2 == 0) ? hwif_out.PORT[n].WEIGHT[p / 2].W_EVEN.value
                                         : hwif_out.PORT[n].WEIGHT[p / 2].W_ODD.value;
      assign xoff_thr[n][p] = hwif_out.PORT[n].PFC_THR[p].XOFF.value;
      assign xon_thr[n][p] = hwif_out.PORT[n].PFC_THR[p].XON.value;
      assign quanta[n][p] = (p % 2 == 0) ? hwif_out.PORT[n].QUANTA[p / 2].Q_EVEN.value
                                         : hwif_out.PORT[n].QUANTA[p / 2].Q_ODD.value;
      assign kmin[n][p] = hwif_out.PORT[n].WRED_K[p].KMIN.value;
      assign kmax[n][p] = hwif_out.PORT[n].WRED_K[p].KMAX.value;
    end
    // WRED_P[r] packs the probabilities of priorities 4r .. 4r+3.
    for (genvar r = 0; r < NumPrio / 4; r++) begin : gen_pmax
      assign pmax[n][4*r+0] = hwif_out.PORT[n].WRED_P[r].P0.value;
      assign pmax[n][4*r+1] = hwif_out.PORT[n].WRED_P[r].P1.value;
      assign pmax[n][4*r+2] = hwif_out.PORT[n].WRED_P[r].P2.value;
      assign pmax[n][4*r+3] = hwif_out.PORT[n].WRED_P[r].P3.value;
    end
  end

  // ---------------------------------------------------------------------------
  // Tables
  // ---------------------------------------------------------------------------
  lid_t [NumPorts-1:0] lk_dst;
  logic [NumPorts-1:0] lk_hit;
  logic [NumPorts-1:0][NumPorts-1:0] lk_mask;
  logic tbl_error;
  logic [31:0] tbl_rdata;

  switch_tables #(
    .NumPorts(NumPorts),
    .LftEntries(LftEntries),
    .MftEntries(MftEntries)
  ) u_tables (
    .clk_i,
    .rst_ni,
    .index_i(hwif_out.TBL_ADDR.INDEX.value),
    .table_i(hwif_out.TBL_ADDR.TABLE.value),
    .wdata_i(hwif_out.TBL_WDATA.DATA.value),
    .write_i(hwif_out.TBL_CMD.WRITE.value),
    .read_i(hwif_out.TBL_CMD.READ.value),
    .rdata_o(tbl_rdata),
    .error_o(tbl_error),
    .dst_i(lk_dst),
    .hit_o(lk_hit),
    .mask_o(lk_mask)
  );

  // ---------------------------------------------------------------------------
  // Ingress ports
  // ---------------------------------------------------------------------------
  logic [NumPorts-1:0] pfc_rx_valid;
  prio_mask_t [NumPorts-1:0] pfc_rx_class;
  pfc_quanta_t [NumPorts-1:0] pfc_rx_quanta;
  logic [NumPorts-1:0] ev_rx, ev_drop_disabled, ev_drop_bad, ev_drop_no_route, ev_drop_buf;
  prio_t [NumPorts-1:0] ev_in_prio;
  logic [NumPorts-1:0][NumPrio-1:0][CntW-1:0] occ;
  logic [NumPorts-1:0] pend_valid, pend_pop;
  logic [NumPorts-1:0][CellW-1:0] pend_slot;
  pkt_hdr_t [NumPorts-1:0] pend_hdr;
  logic [NumPorts-1:0][NumPorts-1:0] pend_mask;
  logic [NumPorts-1:0] copy_valid;
  logic copy_keep;
  cell_t copy_slot;
  logic [PortW-1:0] copy_port;
  hdr_patch_t copy_patch;
  // [input][output][queue]
  logic [NumPorts-1:0][NumPorts-1:0][NumPrio-1:0] voq_valid;
  len_t [NumPorts-1:0][NumPorts-1:0][NumPrio-1:0] voq_len;
  logic [NumPorts-1:0][NumPorts-1:0][NumPrio-1:0][CntW-1:0] voq_cells;
  logic [NumPorts-1:0] in_pop, in_busy, in_done;
  logic [NumPorts-1:0][PortW-1:0] in_pop_port;
  prio_t [NumPorts-1:0] in_pop_q;
  logic [NumPorts-1:0][CellW-1:0] in_pop_slot, in_pop_cell, in_rd_cell, in_rd_next, in_done_slot;
  hdr_patch_t [NumPorts-1:0] in_pop_patch;
  flit_t [NumPorts-1:0] in_rd_data;

  for (genvar i = 0; i < NumPorts; i++) begin : gen_ingress
    switch_ingress #(
      .NumPorts(NumPorts),
      .BufCells(BufCells)
    ) u_ingress (
      .clk_i,
      .rst_ni,
      .enable_i(enable),
      .pfc_en_i(pfc_en[i]),
      .lossy_limit_i(lossy_limit[i]),
      .rx_valid_i(rx_valid_i[i]),
      .rx_ready_o(rx_ready_o[i]),
      .rx_data_i(rx_data_i[i]),
      .rx_last_i(rx_last_i[i]),
      .lk_dst_o(lk_dst[i]),
      .lk_hit_i(lk_hit[i]),
      .lk_mask_i(lk_mask[i]),
      .pfc_valid_o(pfc_rx_valid[i]),
      .pfc_class_o(pfc_rx_class[i]),
      .pfc_quanta_o(pfc_rx_quanta[i]),
      .ev_rx_o(ev_rx[i]),
      .ev_drop_disabled_o(ev_drop_disabled[i]),
      .ev_drop_bad_o(ev_drop_bad[i]),
      .ev_drop_no_route_o(ev_drop_no_route[i]),
      .ev_drop_buf_o(ev_drop_buf[i]),
      .ev_prio_o(ev_in_prio[i]),
      .occ_o(occ[i]),
      .pend_valid_o(pend_valid[i]),
      .pend_slot_o(pend_slot[i]),
      .pend_hdr_o(pend_hdr[i]),
      .pend_mask_o(pend_mask[i]),
      .pend_pop_i(pend_pop[i]),
      .copy_valid_i(copy_valid[i]),
      .copy_keep_i(copy_keep),
      .copy_slot_i(copy_slot),
      .copy_port_i(copy_port),
      .copy_patch_i(copy_patch),
      .voq_valid_o(voq_valid[i]),
      .voq_len_o(voq_len[i]),
      .voq_cells_o(voq_cells[i]),
      .pop_i(in_pop[i]),
      .pop_port_i(in_pop_port[i]),
      .pop_q_i(in_pop_q[i]),
      .pop_slot_o(in_pop_slot[i]),
      .pop_cell_o(in_pop_cell[i]),
      .pop_patch_o(in_pop_patch[i]),
      .rd_cell_i(in_rd_cell[i]),
      .rd_data_o(in_rd_data[i]),
      .rd_next_o(in_rd_next[i]),
      .done_i(in_done[i]),
      .done_slot_i(in_done_slot[i])
    );
  end

  // ---------------------------------------------------------------------------
  // Enqueue engine: one copy per cycle, copies of a packet in increasing
  // output order, inputs served round robin, a packet's copies back to back.
  // ---------------------------------------------------------------------------
  logic eng_busy_q, eng_busy_d;
  logic [PortW-1:0] eng_in_q, eng_in_d, eng_rr_q, eng_rr_d;
  // The engine's decision, read by the co-simulation's probe
  // (sim/cosim/switch/switch_cosim_bench.cpp).
  logic [PortW-1:0] eng_in  /* verilator public_flat_rd */;
  logic [NumPorts-1:0] eng_rem_q, eng_rem_d, eng_mask, eng_rest;
  logic eng_active /* verilator public_flat_rd */;
  pkt_hdr_t eng_hdr;
  logic [PortW-1:0] eng_out /* verilator public_flat_rd */;
  logic hook;
  prio_t eng_q /* verilator public_flat_rd */;
  logic [PKT_HDR_DSCP_W-1:0] eng_dscp;
  logic [31:0] qlen_sum;
  logic [15:0] qlen /* verilator public_flat_rd */;
  logic wred_mark /* verilator public_flat_rd */;
  logic wred_drop /* verilator public_flat_rd */;
  ecn_e wred_ecn_out;
  prio_mask_t [NumPorts-1:0] pfc_off;

  logic [NumPorts-1:0] uplink;  // the hook-flow uplink group
  assign uplink = NumPorts'(hwif_out.REMAP_CTRL.UPLINK_MASK.value);

  // The next input with a pending packet from eng_rr_q on, and the lowest
  // output a packet's copies still need.
  logic [PortW-1:0] pend_pick;
  logic pend_any;
  rr_pick #(
    .N(NumPorts)
  ) u_pend_pick (
    .mask_i(pend_valid),
    .start_i(eng_rr_q),
    .any_o(pend_any),
    .idx_o(pend_pick)
  );
  logic eng_mask_any;
  rr_pick #(
    .N(NumPorts)
  ) u_out_pick (
    .mask_i(eng_mask),
    .start_i('0),
    .any_o(eng_mask_any),
    .idx_o(eng_out)
  );

  assign eng_in = eng_busy_q ? eng_in_q : (pend_any ? pend_pick : eng_rr_q);
  assign eng_active = eng_busy_q || pend_any;
  assign eng_mask = eng_busy_q ? eng_rem_q : pend_mask[eng_in];
  assign eng_hdr = pend_hdr[eng_in];

  always_comb begin
    eng_rest = eng_mask & ~(NumPorts'(1) << eng_out);
    hook = hwif_out.REMAP_CTRL.ENABLE.value && uplink[eng_in] && uplink[eng_out];
    eng_q = hook ? hwif_out.REMAP[eng_hdr.prio].NEW_PRIO.value : eng_hdr.prio;
    eng_dscp = hook ? hwif_out.REMAP[eng_hdr.prio].NEW_DSCP.value : eng_hdr.dscp;
    qlen_sum = '0;
    for (int i = 0; i < NumPorts; i++) begin
      qlen_sum = qlen_sum + 32'(voq_cells[i][eng_out][eng_q]);
    end
    qlen = (qlen_sum > 32'hFFFF) ? 16'hFFFF : qlen_sum[15:0];
  end

  wred_ecn #(
    .QLenW(16),
    .ProbW(8)
  ) u_wred (
    .clk_i,
    .rst_ni,
    .req_i(eng_active),
    .qlen_i(qlen),
    .ecn_i(eng_hdr.ecn),
    .lossless_i(pfc_en[eng_out][eng_q] && !pfc_off[eng_out][eng_q]),
    .enable_i(wred_en[eng_out][eng_q]),
    .kmin_i(kmin[eng_out][eng_q]),
    .kmax_i(kmax[eng_out][eng_q]),
    .pmax_i(pmax[eng_out][eng_q]),
    .mark_o(wred_mark),
    .drop_o(wred_drop),
    .ecn_o(wred_ecn_out)
  );

  always_comb begin
    copy_valid = '0;
    copy_valid[eng_in] = eng_active;
    pend_pop = '0;
    pend_pop[eng_in] = eng_active && eng_rest == '0;
    eng_busy_d = eng_active && eng_rest != '0;
    eng_in_d = eng_in;
    eng_rem_d = eng_rest;
    eng_rr_d = eng_rr_q;
    if (eng_active && eng_rest == '0) eng_rr_d = next_port(eng_in);
  end
  assign copy_keep = !wred_drop;
  assign copy_slot = pend_slot[eng_in];
  assign copy_port = eng_out;
  assign copy_patch = '{dscp: eng_dscp, ecn: wred_ecn_out, prio: eng_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      eng_busy_q <= 1'b0;
      eng_in_q <= '0;
      eng_rr_q <= '0;
      eng_rem_q <= '0;
    end else begin
      eng_busy_q <= eng_busy_d;
      eng_in_q <= eng_in_d;
      eng_rr_q <= eng_rr_d;
      eng_rem_q <= eng_rem_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Egress ports and the output/input matching
  // ---------------------------------------------------------------------------
  logic [NumPorts-1:0] req, accept, match, out_busy, out_done;
  logic [NumPorts-1:0][PortW-1:0] match_in, out_src;
  prio_t [NumPorts-1:0] match_q, ev_out_q;
  logic [NumPorts-1:0][CellW-1:0] out_rd_cell, out_done_slot;
  logic [NumPorts-1:0] ev_tx, ev_drop_wd;
  prio_mask_t [NumPorts-1:0] ev_pause_tx, ev_resume_tx, ev_pause_rx, ev_resume_rx;
  prio_mask_t [NumPorts-1:0] ev_wd_detect, ev_wd_recover, ev_wd_disable, stop, xoff_tx;
  wd_state_e [NumPorts-1:0][NumPrio-1:0] wd_state;
  logic [PortW-1:0] tok_rr_q, tok_rr_d;

  for (genvar o = 0; o < NumPorts; o++) begin : gen_egress
    logic [NumPorts-1:0][NumPrio-1:0] vv;
    len_t [NumPorts-1:0][NumPrio-1:0] vl;
    for (genvar i = 0; i < NumPorts; i++) begin : gen_view
      assign vv[i] = voq_valid[i][o];
      assign vl[i] = voq_len[i][o];
    end
    switch_egress #(
      .NumPorts(NumPorts),
      .BufCells(BufCells)
    ) u_egress (
      .clk_i,
      .rst_ni,
      .pfc_en_i(pfc_en[o]),
      .sp_mask_i(sp_mask[o]),
      .weight_i(weight[o]),
      .wd_enable_i(wd_enable[o]),
      .wd_drop_mode_i(wd_drop_mode[o]),
      .wd_reenable_i(wd_reenable[o]),
      .xoff_thr_i(xoff_thr[o]),
      .xon_thr_i(xon_thr[o]),
      .quanta_i(quanta[o]),
      .cyc_per_quantum_i(hwif_out.PFC_TIMING.CYC_PER_QUANTUM.value),
      .refresh_i(hwif_out.PFC_TIMING.REFRESH.value),
      .wd_detect_i(hwif_out.WD_DETECT_TIME.CYCLES.value),
      .wd_recover_i(hwif_out.WD_RECOVER_TIME.CYCLES.value),
      .wd_window_i(hwif_out.WD_WINDOW.CYCLES.value),
      .wd_limit_i(hwif_out.WD_LIMIT.LIMIT.value),
      .occ_i(occ[o]),
      .pfc_valid_i(pfc_rx_valid[o]),
      .pfc_class_i(pfc_rx_class[o]),
      .pfc_quanta_i(pfc_rx_quanta[o]),
      .voq_valid_i(vv),
      .voq_len_i(vl),
      .in_busy_i(in_busy),
      .req_o(req[o]),
      .accept_i(accept[o]),
      .match_o(match[o]),
      .match_in_o(match_in[o]),
      .match_q_o(match_q[o]),
      .pop_slot_i(in_pop_slot[match_in[o]]),
      .pop_cell_i(in_pop_cell[match_in[o]]),
      .pop_patch_i(in_pop_patch[match_in[o]]),
      .busy_o(out_busy[o]),
      .src_o(out_src[o]),
      .rd_cell_o(out_rd_cell[o]),
      .rd_data_i(in_rd_data[out_src[o]]),
      .rd_next_i(in_rd_next[out_src[o]]),
      .done_o(out_done[o]),
      .done_slot_o(out_done_slot[o]),
      .tx_valid_o(tx_valid_o[o]),
      .tx_ready_i(tx_ready_i[o]),
      .tx_data_o(tx_data_o[o]),
      .tx_last_o(tx_last_o[o]),
      .ev_tx_o(ev_tx[o]),
      .ev_drop_wd_o(ev_drop_wd[o]),
      .ev_q_o(ev_out_q[o]),
      .ev_pause_tx_o(ev_pause_tx[o]),
      .ev_resume_tx_o(ev_resume_tx[o]),
      .ev_pause_rx_o(ev_pause_rx[o]),
      .ev_resume_rx_o(ev_resume_rx[o]),
      .ev_wd_detect_o(ev_wd_detect[o]),
      .ev_wd_recover_o(ev_wd_recover[o]),
      .ev_wd_disable_o(ev_wd_disable[o]),
      .wd_state_o(wd_state[o]),
      .pfc_off_o(pfc_off[o]),
      .stop_o(stop[o]),
      .xoff_tx_o(xoff_tx[o])
    );
  end

  // Outputs offering a grant are accepted in round-robin order from tok_rr_q,
  // each input to one output per cycle (an input has one read port).
  logic [NumPorts-1:0] claimed;
  always_comb begin
    logic [PortW-1:0] o;
    accept = '0;
    claimed = '0;
    o = tok_rr_q;
    for (int k = 0; k < NumPorts; k++) begin
      if (req[o] && !claimed[match_in[o]]) begin
        accept[o] = 1'b1;
        claimed[match_in[o]] = 1'b1;
      end
      o = next_port(o);
    end
    tok_rr_d = (req != '0) ? next_port(tok_rr_q) : tok_rr_q;
  end

  // Each accepted output pops the head of its VOQ at its input.
  always_comb begin
    in_pop = '0;
    in_pop_port = '0;
    in_pop_q = '0;
    for (int o = 0; o < NumPorts; o++) begin
      if (match[o]) begin
        in_pop[match_in[o]] = 1'b1;
        in_pop_port[match_in[o]] = PortW'(o);
        in_pop_q[match_in[o]] = match_q[o];
      end
    end
  end

  // Read port and copy completion of each input: the output streaming from it.
  // in_busy: the read port stays taken next cycle. An input whose copy reads
  // its last flit now (done) is free from the next cycle on, so it may be
  // matched again in this cycle, by the same output or another one: copies
  // of one input then also follow each other without an idle read cycle.
  always_comb begin
    in_busy = '0;
    in_done = '0;
    in_rd_cell = '0;
    in_done_slot = '0;
    for (int o = 0; o < NumPorts; o++) begin
      if (out_busy[o]) begin
        if (!out_done[o]) in_busy[out_src[o]] = 1'b1;
        in_rd_cell[out_src[o]] = out_rd_cell[o];
        if (out_done[o]) begin
          in_done[out_src[o]] = 1'b1;
          in_done_slot[out_src[o]] = out_done_slot[o];
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) tok_rr_q <= '0;
    else tok_rr_q <= tok_rr_d;
  end

  // ---------------------------------------------------------------------------
  // Counters, interrupts, status
  // ---------------------------------------------------------------------------
  // Per port: the ingress events at the arrival priority, the egress events
  // at the copy's queue, the enqueue engine's WRED events at its (o, q), and
  // the PFC / watchdog events as priority masks.
  localparam int unsigned NumEv = 9;
  localparam sw_counter_e [NumEv-1:0] EvKinds = {
    CntEcnMark,
    CntDropWred,
    CntDropWd,
    CntTx,
    CntDropBuf,
    CntDropNoRoute,
    CntDropBadPkt,
    CntDropDisabled,
    CntRx
  };
  localparam int unsigned NumMaskKinds = 7;
  localparam sw_counter_e [NumMaskKinds-1:0] MaskKinds = {
    CntWdDisable, CntWdRecover, CntWdDetect, CntResumeRx, CntPauseRx, CntResumeTx, CntPauseTx
  };
  logic [NumPorts-1:0][NumEv-1:0] cnt_ev;
  prio_t [NumPorts-1:0][NumEv-1:0] cnt_ev_prio;
  prio_mask_t [NumPorts-1:0][NumMaskKinds-1:0] cnt_mask;
  for (genvar n = 0; n < NumPorts; n++) begin : gen_cnt_ev
    logic wred_here;
    assign wred_here = eng_active && eng_out == PortW'(n);
    assign cnt_ev[n] = {wred_here && wred_mark, wred_here && wred_drop, ev_drop_wd[n], ev_tx[n],
                        ev_drop_buf[n], ev_drop_no_route[n], ev_drop_bad[n],
                        ev_drop_disabled[n], ev_rx[n]};
    assign cnt_ev_prio[n] = {eng_q, eng_q, ev_out_q[n], ev_out_q[n], {5{ev_in_prio[n]}}};
    assign cnt_mask[n] = {ev_wd_disable[n], ev_wd_recover[n], ev_wd_detect[n], ev_resume_rx[n],
                          ev_pause_rx[n], ev_resume_tx[n], ev_pause_tx[n]};
  end

  logic [31:0] cnt_value;
  switch_counters #(
    .NumPorts(NumPorts),
    .NumEv(NumEv),
    .NumMaskKinds(NumMaskKinds),
    .EvKinds(EvKinds),
    .MaskKinds(MaskKinds)
  ) u_counters (
    .clk_i,
    .rst_ni,
    .clear_i(hwif_out.CTRL.CNT_CLEAR.value),
    .ev_i(cnt_ev),
    .ev_prio_i(cnt_ev_prio),
    .mask_i(cnt_mask),
    .sel_port_i(hwif_out.CNT_SEL.PORT.value),
    .sel_prio_i(hwif_out.CNT_SEL.PRIO.value),
    .sel_kind_i(sw_counter_e'(hwif_out.CNT_SEL.KIND.value)),
    .value_o(cnt_value)
  );

  // Interrupt causes reach INTR_STATUS through a register, one cycle after
  // their event: hwif_in then depends on state only, so the register block's
  // field and read-back logic (each one large always_comb) stay out of the
  // input-combinational path the simulator evaluates at every input change.
  logic intr_wd_detect_q, intr_wd_recover_q, intr_wd_disable_q, intr_bad_pkt_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      intr_wd_detect_q <= 1'b0;
      intr_wd_recover_q <= 1'b0;
      intr_wd_disable_q <= 1'b0;
      intr_bad_pkt_q <= 1'b0;
    end else begin
      intr_wd_detect_q <= ev_wd_detect != '0;
      intr_wd_recover_q <= ev_wd_recover != '0;
      intr_wd_disable_q <= ev_wd_disable != '0;
      intr_bad_pkt_q <= ev_drop_bad != '0;
    end
  end

  always_comb begin
    hwif_in = '0;
    hwif_in.HW_CFG.NUM_PORTS.next = 8'(NumPorts);
    hwif_in.HW_CFG.NUM_PRIO.next = 8'(NumPrio);
    hwif_in.HW_CFG.BUF_CELLS.next = 16'(BufCells);
    hwif_in.TABLE_CFG.LFT_ENTRIES.next = 16'(LftEntries);
    hwif_in.TABLE_CFG.MFT_ENTRIES.next = 16'(MftEntries);
    hwif_in.INTR_STATUS.WD_DETECT.next = intr_wd_detect_q;
    hwif_in.INTR_STATUS.WD_RECOVER.next = intr_wd_recover_q;
    hwif_in.INTR_STATUS.WD_DISABLE.next = intr_wd_disable_q;
    hwif_in.INTR_STATUS.BAD_PKT.next = intr_bad_pkt_q;
    hwif_in.INTR_STATUS.TBL_ERROR.next = tbl_error;
    hwif_in.TBL_RDATA.DATA.next = tbl_rdata;
    hwif_in.TBL_STATUS.BUSY.next = 1'b0;
    hwif_in.CNT_VALUE.COUNT.next = cnt_value;
    hwif_in.WD_STATUS.STATE.next = (32'(hwif_out.CNT_SEL.PORT.value) < NumPorts) ?
        wd_state[hwif_out.CNT_SEL.PORT.value[PortW-1:0]] : 16'd0;
  end

  // ---------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------
  // The generated block's geometry matches these ports and parameters.
  // verilog_format: off
  `SF_STATIC_ASSERT(a_csr_geometry, SWITCH_CSR_REG_TOP_MIN_ADDR_WIDTH == 12 &&
                    SWITCH_CSR_REG_TOP_DATA_WIDTH == 32 && SWITCH_CSR_REG_TOP_SIZE <= 4096 &&
                    NUM_PORTS >= NumPorts)
  // verilog_format: on

  // APB4 rules, requester and completer (zero wait states).
  apb_checker #(
    .AddrW  (12),
    .DataW  (32),
    .MaxWait(0)
  ) u_apb_checker (
    .clk_i,
    .rst_ni,
    .psel_i,
    .penable_i,
    .pwrite_i,
    .pprot_i,
    .paddr_i,
    .pwdata_i,
    .pstrb_i,
    .prdata_i (prdata_o),
    .pready_i (pready_o),
    .pslverr_i(pslverr_o)
  );

  `SF_ASSERT(a_accept_only_req, (accept & ~req) == '0)
  `SF_ASSERT(a_match_is_accept, match == accept)
  `SF_ASSERT(a_engine_mask_nonzero, eng_active |-> eng_mask_any)
  `SF_ASSERT(a_engine_not_back_mc, eng_active && eng_hdr.dst_lid >= MLID_BASE |-> !eng_mask[eng_in])
  for (genvar o = 0; o < NumPorts; o++) begin : gen_out_rules
    for (genvar o2 = o + 1; o2 < NumPorts; o2++) begin : gen_pair
      // One read port per input: two outputs never stream from the same input.
      `SF_ASSERT(a_one_reader, !(out_busy[o] && out_busy[o2] && out_src[o] == out_src[o2]))
    end
  end

  logic unused_top;
  assign unused_top = ^{hwif_out, ev_in_prio, stop, xoff_tx, eng_hdr};

endmodule
