// The syncfab switch (docs/switch-datapath.md): NumPorts ports, each with a
// receive and a transmit stream of flits (FLIT_BITS, from the format spec),
// and the CSR block generated from switch_csr.rdl behind an APB4 port.
//
//   rx[i] -> switch_ingress(i): checks, lookup (switch_tables), admission,
//            cell buffer, VOQ[i][o][q], occupancy -> pfc_tx(i)
//         -> enqueue engine (here): switch_combine decides a COMB packet's
//            copies when the engine takes it; one packet per cycle with all its
//            copies, hook-flow remap, WRED/ECN (one wred_ecn, a lane per output)
//            with the (o, q) queue length over all inputs
//         -> switch_egress(o): pfc_rx/pfc_watchdog, SP+WDRR, input round
//            robin, copy stream, pause frames between packets -> tx[o]
//   switch_counters: port x priority x kind (sw_counter_e), CNT_SEL / CNT_VALUE.
//
// Structure and latencies are in docs/switch-datapath.md, "switch_top RTL".

`include "syncfab_assert.svh"
`include "switch_types.svh"

// The external ports stay flat, one vector per signal (rx_*/tx_* arrays
// indexed by port, APB by its AMBA names): the C++ harness (tb/, sim/,
// tests/) and cocotb drive and probe them by these names and widths.
module switch_top
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
  import switch_csr_reg_pkg::*;
  import switch_csr_reg_addr_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned LftEntries = LFT_ENTRIES,
  parameter int unsigned MftEntries = MFT_ENTRIES,
  parameter int unsigned BufCells = 256,
  localparam int unsigned PortW = `SF_SWITCH_PORT_W(NumPorts),
  localparam type port_t = logic [PortW-1:0],
  localparam type port_mask_t = logic [NumPorts-1:0],
  localparam type lk_rsp_t = `SF_SWITCH_LK_RSP_T,
  localparam type offer_t = `SF_SWITCH_OFFER_T,
  localparam int unsigned CellW = `SF_SWITCH_CELL_W(BufCells),
  localparam int unsigned CntW = `SF_SWITCH_CNT_W(BufCells),
  localparam type cell_t = logic [CellW-1:0],
  localparam type cnt_t = logic [CntW-1:0],
  localparam type pend_t = `SF_SWITCH_PEND_T,
  localparam type pop_rsp_t = `SF_SWITCH_POP_RSP_T,
  localparam type rd_req_t = `SF_SWITCH_RD_REQ_T,
  localparam type rd_rsp_t = `SF_SWITCH_RD_RSP_T
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,
  // APB4 completer (CSRs)
  input  logic                              psel_i,
  input  logic                              penable_i,
  input  logic                              pwrite_i,
  input  csr_prot_t                         pprot_i,
  input  csr_addr_t                         paddr_i,
  input  csr_data_t                         pwdata_i,
  input  csr_strb_t                         pstrb_i,
  output csr_data_t                         prdata_o,
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

  `SF_STATIC_ASSERT(gen_num_ports_check, NumPorts >= 2 && NumPorts <= MaxPorts)
  `SF_STATIC_ASSERT(gen_buf_cells_check, BufCells >= 2 && BufCells <= 32768)

  // The port after p, wrapping at NumPorts.
  function automatic port_t next_port(port_t p);
    return (32'(p) == NumPorts - 1) ? '0 : p + 1'b1;
  endfunction

  // ---------------------------------------------------------------------------
  // CSRs
  // ---------------------------------------------------------------------------
  switch_csr__in_t  hwif_in;
  switch_csr__out_t hwif_out;

  // The register block sees only aligned transfers; the guard refuses the
  // others with PSLVERR (an unaligned access is a bus error). A write that
  // would leave a dynamic ECN register illegal (WIN outside 4..20, PLO >
  // PHI: docs/switch-ecn-dynamic.md section 6) is refused whole: the
  // fields' swwe holds the write back and the access ends with PSLVERR
  // (ecn_refuse, below).
  logic csr_psel, csr_pready, csr_pslverr, ecn_refuse;
  csr_data_t csr_prdata;

  // PADDR bits below one data word: zero on an aligned access.
  localparam int unsigned CsrLsbW = $clog2($bits(csr_data_t) / 8);

  apb_unaligned_guard #(
    .DataW($bits(csr_data_t))
  ) u_unaligned_guard (
    .clk_i,
    .rst_ni,
    .psel_i,
    .penable_i,
    .paddr_lsb_i  (paddr_i[CsrLsbW-1:0]),
    .prdata_o,
    .pready_o,
    .pslverr_o,
    .blk_psel_o   (csr_psel),
    .blk_prdata_i (csr_prdata),
    .blk_pready_i (csr_pready),
    .blk_pslverr_i(csr_pslverr | ecn_refuse)
  );

  switch_csr_reg_top u_csr (
    .clk(clk_i),
    .arst_n(rst_ni),
    .s_apb_psel(csr_psel),
    .s_apb_penable(penable_i),
    .s_apb_pwrite(pwrite_i),
    .s_apb_pprot(pprot_i),
    .s_apb_paddr(paddr_i),
    .s_apb_pwdata(pwdata_i),
    .s_apb_pstrb(pstrb_i),
    .s_apb_pready(csr_pready),
    .s_apb_prdata(csr_prdata),
    .s_apb_pslverr(csr_pslverr),
    .hwif_in,
    .hwif_out
  );
  assign intr_o = hwif_out.INTR_STATUS.intr;

  logic enable;
  assign enable = hwif_out.CTRL.ENABLE.value;

  // Per-port configuration, unpacked from the register struct.
  prio_mask_t [NumPorts-1:0] pfc_en, sp_mask, wd_enable, wred_en, wd_reenable;
  logic [NumPorts-1:0] wd_drop_mode;
  weight_t [NumPorts-1:0][NumPrio-1:0] weight;
  pmax_t [NumPorts-1:0][NumPrio-1:0] pmax;
  thr_t [NumPorts-1:0][NumPrio-1:0] xoff_thr, xon_thr;
  quanta_t [NumPorts-1:0][NumPrio-1:0] quanta;
  qlen_t [NumPorts-1:0][NumPrio-1:0] kmin, kmax;
  lossy_limit_t [NumPorts-1:0] lossy_limit;
  for (genvar n = 0; n < NumPorts; n++) begin : gen_port_cfg
    assign pfc_en[n] = hwif_out.PORT[n].PFC_EN.MASK.value;
    assign sp_mask[n] = hwif_out.PORT[n].SCHED.SP_MASK.value;
    assign wd_enable[n] = hwif_out.PORT[n].WD_CTRL.ENABLE.value;
    assign wd_drop_mode[n] = hwif_out.PORT[n].WD_CTRL.DROP_MODE.value;
    assign wred_en[n] = hwif_out.PORT[n].WRED_EN.MASK.value;
    assign lossy_limit[n] = hwif_out.PORT[n].LOSSY_LIMIT.LIMIT.value;
    assign wd_reenable[n] = (hwif_out.WD_REENABLE.GO.value &&
                             hwif_out.WD_REENABLE.PORT.value == port_num_t'(n)) ?
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
  logic [NumPorts-1:0] lk_valid;
  lk_req_t [NumPorts-1:0] lk_req;
  lk_rsp_t lk_rsp [NumPorts];
  cnt_value_t group_skips;
  logic tbl_error;
  tbl_data_t tbl_rdata, cb_rdata;
  tbl_index_t cb_mft_idx;
  logic cb_mft_valid;
  port_mask_t cb_mft_mask;

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
    .cb_rdata_i(cb_rdata),
    .cb_mft_idx_i(cb_mft_idx),
    .cb_mft_valid_o(cb_mft_valid),
    .cb_mft_mask_o(cb_mft_mask),
    .port_up_i(hwif_out.PORT_UP.UP.value),
    .cnt_clear_i(hwif_out.CTRL.CNT_CLEAR.value),
    .group_skips_o(group_skips),
    .lk_valid_i(lk_valid),
    .lk_req_i(lk_req),
    .lk_rsp_o(lk_rsp)
  );

  // ---------------------------------------------------------------------------
  // Ingress ports
  // ---------------------------------------------------------------------------
  // The per-port struct arrays are unpacked: an element picked by a
  // run-time index (pend[eng_in], in_rd_rsp[out_src[o]], ...) is then one
  // array access in the verilated model, where a packed array of structs
  // whose width is not a multiple of 32 bits is a shift of the whole vector.
  logic [NumPorts-1:0] pfc_rx_valid;
  pfc_rx_frame_t pfc_rx [NumPorts];
  in_ev_t in_ev [NumPorts];
  cnt_t [NumPorts-1:0][NumPrio-1:0] occ;
  logic [NumPorts-1:0] pend_valid, pend_ready;
  pend_t pend [NumPorts];
  // The copies each input pushes into its VOQs (the engine's input only).
  port_mask_t [NumPorts-1:0] in_push;
  // The combine unit's decision on the packet the engine takes (below).
  logic [NumPorts-1:0] comb_valid;
  port_mask_t cb_mask, cb_part, cb_absorb;
  pkt_hdr_t cb_hdr;
  // Ring-mode holds: the take that holds its packet, the inputs whose head
  // is held, those that can take a fresh cell now.
  port_mask_t eng_hold, in_held, in_cell_ok;
  // [input][output][queue]
  logic [NumPorts-1:0][NumPorts-1:0][NumPrio-1:0] voq_valid;
  len_t [NumPorts-1:0][NumPorts-1:0][NumPrio-1:0] voq_len;
  cnt_t [NumPorts-1:0][NumPorts-1:0][NumPrio-1:0] voq_cells;
  cell_t [NumPorts-1:0][NumPorts-1:0][NumPrio-1:0] voq_head;
  logic [NumPorts-1:0] in_busy;
  // [input][output]: the VOQ heads each input pops this cycle, and the answers.
  port_mask_t [NumPorts-1:0] in_pop;
  pop_rsp_t in_pop_rsp [NumPorts][NumPorts];
  rd_req_t in_rd_req [NumPorts];
  rd_rsp_t in_rd_rsp [NumPorts];
  // The copies ending at each input this cycle (its reference count's
  // decrement), as wide as the ingress's reference count.
  localparam int unsigned RefW = $clog2(NumPorts + 1);
  logic [NumPorts-1:0][RefW-1:0] in_rd_ends, in_readers;

  for (genvar i = 0; i < NumPorts; i++) begin : gen_ingress
    assign in_push[i] = eng_take[i] ? eng_keep : '0;
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
      .lk_valid_o(lk_valid[i]),
      .lk_req_o(lk_req[i]),
      .lk_rsp_i(lk_rsp[i]),
      .pfc_valid_o(pfc_rx_valid[i]),
      .pfc_o(pfc_rx[i]),
      .ev_o(in_ev[i]),
      .occ_o(occ[i]),
      .pend_valid_o(pend_valid[i]),
      .pend_ready_i(pend_ready[i]),
      .pend_o(pend[i]),
      .take_i(eng_take[i]),
      .push_i(in_push[i]),
      .hold_i(eng_hold[i]),
      .held_o(in_held[i]),
      .cell_ok_o(in_cell_ok[i]),
      .patch_i(eng_patch),
      .comb_valid_i(comb_valid[i]),
      .comb_hdr_i(cb_hdr),
      .comb_absorb_i(cb_absorb[i]),
      .voq_valid_o(voq_valid[i]),
      .voq_len_o(voq_len[i]),
      .voq_cells_o(voq_cells[i]),
      .voq_head_o(voq_head[i]),
      .pop_valid_i(in_pop[i]),
      .pop_q_i(pop_q),
      .pop_rsp_o(in_pop_rsp[i]),
      .rd_req_i(in_rd_req[i]),
      .rd_ends_i(in_rd_ends[i]),
      .rd_rsp_o(in_rd_rsp[i])
    );
  end

  // ---------------------------------------------------------------------------
  // Enqueue engine: one packet per cycle switch-wide, inputs served round
  // robin, all of its copies in that cycle (a lane per output), decided as if
  // one after the other in increasing output order: WRED's one LFSR steps
  // once per copy in that order (wred_ecn's lanes), and each copy reads the
  // queue length of its (o, q) at the start of the cycle, which is what the
  // copies before it left, since two copies of a packet never share an
  // output (docs/switch-datapath.md, "Enqueue", rate).
  // ---------------------------------------------------------------------------
  port_t eng_rr_q, eng_rr_d;
  // The engine's decisions, read by the co-simulation's probe
  // (sim/cosim/switch/switch_cosim_bench.cpp): the input, its packet's
  // copies (eng_mask) and per output the copy's queue, queue length, mark
  // and drop.
  port_t eng_in  /* verilator public_flat_rd */;
  logic eng_active /* verilator public_flat_rd */;
  port_mask_t eng_mask /* verilator public_flat_rd */;
  prio_t [NumPorts-1:0] eng_q /* verilator public_flat_rd */;
  qlen_t [NumPorts-1:0] qlen /* verilator public_flat_rd */;
  port_mask_t wred_mark /* verilator public_flat_rd */;
  port_mask_t wred_drop /* verilator public_flat_rd */;
  pkt_hdr_t eng_hdr;
  port_mask_t hook, eng_keep, eng_take, eng_lossless;
  dscp_t [NumPorts-1:0] eng_dscp;
  ecn_e [NumPorts-1:0] wred_ecn_in, wred_ecn_out;
  port_mask_t wred_lossless, wred_enable;
  qlen_t [NumPorts-1:0] wred_kmin, wred_kmax;
  pmax_t [NumPorts-1:0] wred_pmax;
  hdr_patch_t [NumPorts-1:0] eng_patch;
  prio_mask_t [NumPorts-1:0] pfc_off;
  // The queue length, summed over the inputs at their own width and then
  // saturated at WRED's qlen_t.
  localparam int unsigned QSumW = CntW + PortW;
  // Dynamic ECN: what WRED gets per queue, the state the status registers
  // show, and the measures (the inputs whose copies reach WRED per queue,
  // the pauses received per output).
  qlen_t [NumPorts-1:0][NumPrio-1:0] ke_min, ke_max;
  pmax_t [NumPorts-1:0][NumPrio-1:0] pe;
  ecn_sh_t [NumPorts-1:0][NumPrio-1:0] ecn_sh;
  ecn_act_t [NumPorts-1:0][NumPrio-1:0] ecn_active;
  port_mask_t [NumPorts-1:0][NumPrio-1:0] ecn_enq;
  prio_mask_t [NumPorts-1:0] ecn_pause;

  port_mask_t uplink;  // the hook-flow uplink group
  assign uplink = port_mask_t'(hwif_out.REMAP_CTRL.UPLINK_MASK.value);

  // The next input with a pending packet from eng_rr_q on.
  port_t pend_pick;
  logic pend_any;
  rr_pick #(
    .N(NumPorts)
  ) u_pend_pick (
    .mask_i(pend_valid),
    .start_i(eng_rr_q),
    .any_o(pend_any),
    .idx_o(pend_pick)
  );

  assign eng_in = pend_any ? pend_pick : eng_rr_q;
  assign eng_hdr = pend[eng_in].hdr;

  // A COMB_ARRIVE / COMB_RELEASE / COMB_SHARE is decided by the combine unit in the cycle
  // the engine takes it (docs/switch-datapath.md, "Combine unit"): its
  // copies replace the pending mask (which is empty), in the same cycle, so
  // the unit adds no cycle to the packet's way. No copies (absorbed,
  // dropped): the engine spends that one cycle, makes no copy and pops the
  // packet, whose cells its input frees. The partners the unit absorbs with
  // a COMB_ARRIVE (the same group's arrivals pending at other inputs) are
  // popped in that same cycle and their inputs free their cells: arrivals
  // that come together are decided together, as the golden model's free
  // absorb does.
  //
  // Ring mode (docs/group-barrier.md section 9.4): the unit may hold the
  // packet (cb_hold): it is not popped, its input marks it held and its next
  // take is a retake; the emission of a holding take goes into a fresh cell
  // of the packet's input. A take that would hold with an emission at an
  // input that has no fresh cell to give (in_cell_ok) is blocked: the engine
  // takes nothing this cycle, the unit's entry is not written, and the
  // round robin moves past that input as after a take, so the next cycle
  // serves the next input with a pending packet and the blocked one comes
  // back in its turn.
  logic eng_comb, eng_comb_cand, cb_drop, cb_hold, eng_blocked;
  assign eng_comb_cand = pend_any &&
                         eng_hdr.pkt_type inside {PktCombArrive, PktCombRelease, PktCombShare};
  assign eng_blocked = eng_comb_cand && cb_hold && cb_mask != '0 && !in_cell_ok[eng_in];
  assign eng_comb = eng_comb_cand && !eng_blocked;
  assign eng_active = pend_any && !eng_blocked;
  switch_combine #(
    .NumPorts(NumPorts),
    .MftEntries(MftEntries)
  ) u_combine (
    .clk_i,
    .rst_ni,
    .index_i(hwif_out.TBL_ADDR.INDEX.value),
    .table_i(hwif_out.TBL_ADDR.TABLE.value),
    .wdata_i(hwif_out.TBL_WDATA.DATA.value),
    .write_i(hwif_out.TBL_CMD.WRITE.value),
    .rdata_o(cb_rdata),
    .mft_idx_o(cb_mft_idx),
    .mft_valid_i(cb_mft_valid),
    .mft_mask_i(cb_mft_mask),
    .req_i(eng_comb),
    .in_i(eng_in),
    .hdr_i(eng_hdr),
    .retake_i(in_held[eng_in]),
    .part_i(cb_part),
    .absorb_o(cb_absorb),
    .mask_o(cb_mask),
    .drop_o(cb_drop),
    .hdr_o(cb_hdr),
    .hold_o(cb_hold)
  );
  always_comb begin
    comb_valid = '0;
    comb_valid[eng_in] = eng_comb;
    eng_take = '0;
    eng_take[eng_in] = eng_active;
    eng_hold = '0;
    eng_hold[eng_in] = eng_comb && cb_hold;
  end
  // One compare per input against the engine's header: a pending one-flit
  // COMB_ARRIVE of the same MLID and epoch, not held (a held packet was
  // applied already; the unit checks the rest). The pending FIFO holds
  // complete packets only.
  for (genvar j = 0; j < NumPorts; j++) begin : gen_cb_part
    assign cb_part[j] = pend_valid[j] && !in_held[j] && pend[j].hdr.pkt_type == PktCombArrive &&
                        pend[j].hdr.len_flits == len_t'(1) &&
                        pend[j].hdr.dst_lid == eng_hdr.dst_lid &&
                        pend[j].hdr.epoch == eng_hdr.epoch;
    // An absorbed partner is a pending one-flit COMB_ARRIVE of the engine's
    // packet's MLID and epoch.
    `SF_ASSERT_IMM(a_cb_partner_same_group,
                   !cb_absorb[j] || (pend_valid[j] && pend[j].hdr.pkt_type == PktCombArrive &&
                                     pend[j].hdr.len_flits == len_t'(1) &&
                                     pend[j].hdr.dst_lid == eng_hdr.dst_lid &&
                                     pend[j].hdr.epoch == eng_hdr.epoch))
  end

  // The packet's copies: the combine unit's for a COMB packet, else its
  // pending mask; none while no input has a packet.
  assign eng_mask = !eng_active ? '0 : (eng_comb ? cb_mask : pend[eng_in].mask);

  // Per output: the copy's hook-flow remap, queue length and WRED inputs.
  prio_t remap_prio;
  dscp_t remap_dscp;
  logic remap_in;  // remap on and the packet's input an uplink
  assign remap_prio = hwif_out.REMAP[eng_hdr.prio].NEW_PRIO.value;
  assign remap_dscp = hwif_out.REMAP[eng_hdr.prio].NEW_DSCP.value;
  assign remap_in = hwif_out.REMAP_CTRL.ENABLE.value && uplink[eng_in];
  // Every queue's length (the dynamic ECN thresholds measure them all); the
  // copy's is its queue's.
  qlen_t [NumPorts-1:0][NumPrio-1:0] qlen_all;
  for (genvar o = 0; o < NumPorts; o++) begin : gen_qlen
    for (genvar q = 0; q < NumPrio; q++) begin : gen_q
      logic [QSumW-1:0] qlen_sum;
      always_comb begin
        qlen_sum = '0;
        for (int i = 0; i < NumPorts; i++) begin
          qlen_sum = qlen_sum + QSumW'(voq_cells[i][o][q]);
        end
      end
      assign qlen_all[o][q] = (32'(qlen_sum) > 32'(qlen_t'('1))) ? '1 : qlen_t'(qlen_sum);
    end
  end
  for (genvar o = 0; o < NumPorts; o++) begin : gen_copy
    assign hook[o] = remap_in && uplink[o];
    assign eng_q[o] = hook[o] ? remap_prio : eng_hdr.prio;
    assign eng_dscp[o] = hook[o] ? remap_dscp : eng_hdr.dscp;
    assign qlen[o] = qlen_all[o][eng_q[o]];
    assign eng_lossless[o] = pfc_en[o][eng_q[o]];
    assign wred_lossless[o] = pfc_en[o][eng_q[o]] && !pfc_off[o][eng_q[o]];
    assign wred_enable[o] = wred_en[o][eng_q[o]];
    assign wred_kmin[o] = ke_min[o][eng_q[o]];
    assign wred_kmax[o] = ke_max[o][eng_q[o]];
    assign wred_pmax[o] = pe[o][eng_q[o]];
    // The copy reaches WRED for its queue: its input is active there.
    for (genvar q = 0; q < NumPrio; q++) begin : gen_enq
      assign ecn_enq[o][q] = (eng_mask[o] && eng_q[o] == prio_t'(q)) ? port_mask_t'(1) << eng_in
                                                                   : '0;
    end
    assign wred_ecn_in[o] = eng_hdr.ecn;
    assign eng_patch[o] = '{dscp: eng_dscp[o], ecn: wred_ecn_out[o], prio: eng_q[o]};
  end

  // Dynamic ECN thresholds (docs/switch-ecn-dynamic.md): WRED's Kmin, Kmax
  // and Pmax of every queue, from the static registers and each window's
  // measures; the static ones while the law is off for the queue.
  ecn_dyn #(
    .NumOut(NumPorts),
    .NumIn(NumPorts),
    .NumPrio(NumPrio),
    .QLenW($bits(qlen_t)),
    .ProbW($bits(pmax_t)),
    .WinW($bits(ecn_win_t)),
    .ShW($bits(ecn_sh_t)),
    .ActW($bits(ecn_act_t)),
    .WinCntW(EcnWinCntW)
  ) u_ecn_dyn (
    .clk_i,
    .rst_ni,
    .en_i(hwif_out.ECN_DYN_CTRL.EN.value),
    .win_i(hwif_out.ECN_DYN_CTRL.WIN.value),
    .fan_sh_i(hwif_out.ECN_DYN_CTRL.FAN_SH.value),
    .qref_i(hwif_out.ECN_DYN_TARGET.QREF.value),
    .plo_i(hwif_out.ECN_DYN_PMAX.PLO.value),
    .phi_i(hwif_out.ECN_DYN_PMAX.PHI.value),
    .pup_i(hwif_out.ECN_DYN_PMAX.PUP.value),
    .pdn_i(hwif_out.ECN_DYN_PMAX.PDN.value),
    .ks_min_i(kmin),
    .ks_max_i(kmax),
    .ps_i(pmax),
    .qlen_i(qlen_all),
    .enq_i(ecn_enq),
    .pause_i(ecn_pause),
    .ke_min_o(ke_min),
    .ke_max_o(ke_max),
    .pe_o(pe),
    .sh_o(ecn_sh),
    .active_o(ecn_active)
  );

  wred_ecn #(
    .QLenW($bits(qlen_t)),
    .ProbW($bits(pmax_t)),
    .NumReq(NumPorts)
  ) u_wred (
    .clk_i,
    .rst_ni,
    .req_i(eng_mask),
    .qlen_i(qlen),
    .ecn_i(wred_ecn_in),
    .lossless_i(wred_lossless),
    .enable_i(wred_enable),
    .kmin_i(wred_kmin),
    .kmax_i(wred_kmax),
    .pmax_i(wred_pmax),
    .mark_o(wred_mark),
    .drop_o(wred_drop),
    .ecn_o(wred_ecn_out)
  );
  assign eng_keep = eng_mask & ~wred_drop;

  always_comb begin
    pend_ready = cb_absorb | (eng_take & ~eng_hold);
    eng_rr_d = pend_any ? next_port(eng_in) : eng_rr_q;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) eng_rr_q <= '0;
    else eng_rr_q <= eng_rr_d;
  end

  // ---------------------------------------------------------------------------
  // Egress ports and the output/input matching
  // ---------------------------------------------------------------------------
  logic [NumPorts-1:0] offer_valid, accept, out_busy, out_one;
  offer_t offer [NumPorts];
  prio_t [NumPorts-1:0] pop_q;  // the queue each output pops: its offer's
  port_t [NumPorts-1:0] out_src;
  rd_req_t out_rd_req [NumPorts];
  out_ev_t out_ev [NumPorts];
  prio_mask_t [NumPorts-1:0] stop, xoff_tx;
  wd_state_e [NumPorts-1:0][NumPrio-1:0] wd_state;
  port_t tok_rr_q, tok_rr_d;

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
      .pfc_i(pfc_rx[o]),
      .voq_valid_i(vv),
      .voq_len_i(vl),
      .in_busy_i(in_busy),
      .offer_valid_o(offer_valid[o]),
      .offer_ready_i(accept[o]),
      .offer_o(offer[o]),
      .pop_rsp_i(in_pop_rsp[offer[o].in][o]),
      .rd_valid_o(out_busy[o]),
      .rd_src_o(out_src[o]),
      .rd_req_o(out_rd_req[o]),
      .rd_one_o(out_one[o]),
      .rd_rsp_i(in_rd_rsp[out_src[o]]),
      .tx_valid_o(tx_valid_o[o]),
      .tx_ready_i(tx_ready_i[o]),
      .tx_data_o(tx_data_o[o]),
      .tx_last_o(tx_last_o[o]),
      .ev_o(out_ev[o]),
      .wd_state_o(wd_state[o]),
      .pfc_off_o(pfc_off[o]),
      .stop_o(stop[o]),
      .xoff_tx_o(xoff_tx[o])
    );
  end

  // The head each output's offer names (VOQ[in][o][q] of its offer): its
  // slot, and whether its packet is one flit. One indexed read per output.
  cell_t [NumPorts-1:0] off_slot;
  logic [NumPorts-1:0] off_one;
  for (genvar o = 0; o < NumPorts; o++) begin : gen_offer_head
    assign off_slot[o] = voq_head[offer[o].in][o][offer[o].q];
    assign off_one[o] = voq_len[offer[o].in][o][offer[o].q] == len_t'(1);
    assign pop_q[o] = offer[o].q;
  end

  // Outputs offering a grant are accepted in round-robin order from tok_rr_q,
  // each input to one output per cycle (an input has one read port), which
  // claims the input for the head its offer names. Then the shared read of a
  // one-flit packet (docs/switch-datapath.md, "Egress"): every other output
  // offering a claimed input whose offered head is the same slot, a one-flit
  // packet, is accepted too, whatever its place in the round robin. Its copy
  // reads the one cell the claiming output reads (in the same cycle, or
  // later if its tx is not ready: the input stays taken until then). An
  // output in watchdog drop mode shares like any other and discards its
  // copy (docs/switch-datapath.md, "switch_top RTL").
  port_mask_t claimed, claim_one, accept_rr, share;
  cell_t [NumPorts-1:0] claim_slot;
  always_comb begin
    port_t o;
    accept_rr = '0;
    claimed = '0;
    claim_one = '0;
    claim_slot = '0;
    o = tok_rr_q;
    for (int k = 0; k < NumPorts; k++) begin
      if (offer_valid[o] && !claimed[offer[o].in]) begin
        accept_rr[o] = 1'b1;
        claimed[offer[o].in] = 1'b1;
        claim_one[offer[o].in] = off_one[o];
        claim_slot[offer[o].in] = off_slot[o];
      end
      o = next_port(o);
    end
    tok_rr_d = (offer_valid != '0) ? next_port(tok_rr_q) : tok_rr_q;
  end
  // One compare per output, against its input's claim.
  for (genvar o = 0; o < NumPorts; o++) begin : gen_share
    assign share[o] = offer_valid[o] && !accept_rr[o] && claim_one[offer[o].in] &&
                      claim_slot[offer[o].in] == off_slot[o];
  end
  assign accept = accept_rr | share;

  // Each accepted output pops the head of its VOQ at its input: one output
  // per input, or the outputs of a shared read.
  always_comb begin
    in_pop = '0;
    for (int o = 0; o < NumPorts; o++) begin
      if (accept[o]) in_pop[offer[o].in][o] = 1'b1;
    end
  end

  // Read port and copy completion of each input: the outputs streaming from
  // it, one, or the sharers of a one-flit packet's cell (all the same cell
  // and slot). in_busy: the read port stays taken next cycle. An input whose
  // copy reads its last flit now (rd_req.last) is free from the next cycle
  // on, so it may be matched again in this cycle, by the same output or
  // another one: copies of one input then also follow each other without an
  // idle read cycle. A sharer whose tx is not ready keeps the input taken
  // until it sends. in_rd_ends: the copies ending now, each one reference.
  always_comb begin
    in_busy = '0;
    in_rd_req = '{default: '0};
    in_rd_ends = '0;
    in_readers = '0;
    for (int o = 0; o < NumPorts; o++) begin
      if (out_busy[o]) begin
        if (!out_rd_req[o].last) in_busy[out_src[o]] = 1'b1;
        in_rd_req[out_src[o]].addr = out_rd_req[o].addr;
        in_rd_req[out_src[o]].slot = out_rd_req[o].slot;
        in_rd_req[out_src[o]].last |= out_rd_req[o].last;
        in_rd_ends[out_src[o]] = in_rd_ends[out_src[o]] + RefW'(out_rd_req[o].last);
        in_readers[out_src[o]] = in_readers[out_src[o]] + RefW'(1);
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
  // The combine unit's drops are DROP_NO_ROUTE events of their own, at the
  // packet's input and priority: they meet the input's own DROP_NO_ROUTE
  // in one cycle (switch_counters adds both).
  localparam int unsigned NumEv = 10;
  localparam sw_counter_e [NumEv-1:0] EvKinds = {
    CntDropNoRoute,
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
  prio_mask_t [NumPorts-1:0] ev_wd_detect, ev_wd_recover, ev_wd_disable, ev_pause_tx;
  logic [NumPorts-1:0] ev_drop_bad;
  for (genvar n = 0; n < NumPorts; n++) begin : gen_cnt_ev
    logic cb_drop_here;
    assign cb_drop_here = eng_comb && cb_drop && eng_in == port_t'(n);
    // WRED events: one per output and kind at most, at the copy's queue.
    assign cnt_ev[n] = {cb_drop_here, wred_mark[n], wred_drop[n],
                        out_ev[n].drop_wd, out_ev[n].tx, in_ev[n].drop_buf,
                        in_ev[n].drop_no_route, in_ev[n].drop_bad, in_ev[n].drop_disabled,
                        in_ev[n].rx};
    assign cnt_ev_prio[n] = {eng_hdr.prio, eng_q[n], eng_q[n], out_ev[n].q, out_ev[n].q,
                             {5{in_ev[n].prio}}};
    assign cnt_mask[n] = {out_ev[n].wd_disable, out_ev[n].wd_recover, out_ev[n].wd_detect,
                          out_ev[n].resume_rx, out_ev[n].pause_rx, out_ev[n].resume_tx,
                          out_ev[n].pause_tx};
    assign ev_wd_detect[n] = out_ev[n].wd_detect;
    assign ev_wd_recover[n] = out_ev[n].wd_recover;
    assign ev_wd_disable[n] = out_ev[n].wd_disable;
    assign ev_pause_tx[n] = out_ev[n].pause_tx;
    assign ev_drop_bad[n] = in_ev[n].drop_bad;
    assign ecn_pause[n] = out_ev[n].pause_rx;  // PAUSE_RX: the law's `pause`
  end

  cnt_value_t cnt_value;
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

  // The shape the switch reports (HW_CFG, TABLE_CFG), each as wide as its field.
  localparam switch_csr__HW_CFG__in_t HwCfg = '{
      NUM_PORTS: switch_csr__HW_CFG__NUM_PORTS__in_t'(NumPorts),
      NUM_PRIO: switch_csr__HW_CFG__NUM_PRIO__in_t'(NumPrio),
      BUF_CELLS: switch_csr__HW_CFG__BUF_CELLS__in_t'(BufCells)
  };
  localparam switch_csr__TABLE_CFG__in_t TableCfg = '{
      LFT_ENTRIES: switch_csr__TABLE_CFG__LFT_ENTRIES__in_t'(LftEntries),
      MFT_ENTRIES: switch_csr__TABLE_CFG__MFT_ENTRIES__in_t'(MftEntries)
  };

  // The dynamic ECN status registers show the queue CNT_SEL names.
  logic ecn_sel_valid;
  port_t ecn_sel_port;
  prio_t ecn_sel_prio;
  assign ecn_sel_valid = 32'(hwif_out.CNT_SEL.PORT.value) < NumPorts;
  assign ecn_sel_port = hwif_out.CNT_SEL.PORT.value[PortW-1:0];
  assign ecn_sel_prio = hwif_out.CNT_SEL.PRIO.value;
  // A write's ECN_DYN_CTRL / ECN_DYN_PMAX word that is refused; the access to
  // the register (swacc, in the access phase) ends with PSLVERR.
  ecn_win_t ecn_wdata_win;
  pmax_t ecn_wdata_plo, ecn_wdata_phi;
  logic ecn_ctrl_bad, ecn_pmax_bad;
  assign ecn_wdata_win = pwdata_i[ECN_DYN_CTRL_WIN_LSB+:ECN_DYN_CTRL_WIN_WIDTH];
  assign ecn_wdata_plo = pwdata_i[ECN_DYN_PMAX_PLO_LSB+:ECN_DYN_PMAX_PLO_WIDTH];
  assign ecn_wdata_phi = pwdata_i[ECN_DYN_PMAX_PHI_LSB+:ECN_DYN_PMAX_PHI_WIDTH];
  assign ecn_ctrl_bad = 32'(ecn_wdata_win) < EcnWinMin || 32'(ecn_wdata_win) > EcnWinCntW;
  assign ecn_pmax_bad = ecn_wdata_plo > ecn_wdata_phi;
  assign ecn_refuse = pwrite_i && ((hwif_out.ECN_DYN_CTRL.EN.swacc && ecn_ctrl_bad) ||
                                   (hwif_out.ECN_DYN_PMAX.PLO.swacc && ecn_pmax_bad));

  always_comb begin
    hwif_in = '0;
    hwif_in.HW_CFG = HwCfg;
    hwif_in.TABLE_CFG = TableCfg;
    hwif_in.INTR_STATUS.WD_DETECT.next = intr_wd_detect_q;
    hwif_in.INTR_STATUS.WD_RECOVER.next = intr_wd_recover_q;
    hwif_in.INTR_STATUS.WD_DISABLE.next = intr_wd_disable_q;
    hwif_in.INTR_STATUS.BAD_PKT.next = intr_bad_pkt_q;
    hwif_in.INTR_STATUS.TBL_ERROR.next = tbl_error;
    hwif_in.TBL_RDATA.DATA.next = tbl_rdata;
    hwif_in.TBL_STATUS.BUSY.next = 1'b0;
    hwif_in.CNT_VALUE.COUNT.next = cnt_value;
    hwif_in.GROUP_SKIPS.COUNT.next = group_skips;
    hwif_in.ECN_DYN_K.KMIN.next = ecn_sel_valid ? ke_min[ecn_sel_port][ecn_sel_prio] : '0;
    hwif_in.ECN_DYN_K.KMAX.next = ecn_sel_valid ? ke_max[ecn_sel_port][ecn_sel_prio] : '0;
    hwif_in.ECN_DYN_STATE.PMAX.next = ecn_sel_valid ? pe[ecn_sel_port][ecn_sel_prio] : '0;
    hwif_in.ECN_DYN_STATE.SHIFT.next = ecn_sel_valid ? ecn_sh[ecn_sel_port][ecn_sel_prio] : '0;
    hwif_in.ECN_DYN_STATE.ACTIVE.next = ecn_sel_valid ?
        ecn_act_t'(ecn_active[ecn_sel_port][ecn_sel_prio]) : '0;
    hwif_in.ECN_DYN_CTRL.EN.swwe = !ecn_ctrl_bad;
    hwif_in.ECN_DYN_CTRL.WIN.swwe = !ecn_ctrl_bad;
    hwif_in.ECN_DYN_CTRL.FAN_SH.swwe = !ecn_ctrl_bad;
    hwif_in.ECN_DYN_PMAX.PLO.swwe = !ecn_pmax_bad;
    hwif_in.ECN_DYN_PMAX.PHI.swwe = !ecn_pmax_bad;
    hwif_in.ECN_DYN_PMAX.PUP.swwe = !ecn_pmax_bad;
    hwif_in.ECN_DYN_PMAX.PDN.swwe = !ecn_pmax_bad;
    hwif_in.WD_STATUS.STATE.next = (32'(hwif_out.CNT_SEL.PORT.value) < NumPorts) ?
        wd_state[hwif_out.CNT_SEL.PORT.value[PortW-1:0]] : '0;
  end

  // ---------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------
  // The generated block's geometry matches these ports and parameters, and
  // the register fields that pair up are as wide as each other and as the
  // formats they carry.
  // verilog_format: off
  `SF_STATIC_ASSERT(a_csr_geometry, SWITCH_CSR_REG_TOP_SIZE <= 2 ** $bits(csr_addr_t) &&
                    MaxPorts >= NumPorts)
  `SF_STATIC_ASSERT(a_csr_field_widths,
      $bits(switch_csr__PORTx__WEIGHTx__W_ODD__out_t) == $bits(weight_t) &&
      $bits(switch_csr__PORTx__QUANTAx__Q_ODD__out_t) == $bits(quanta_t) &&
      $bits(quanta_t) == PFC_FRAME_QUANTA_W &&
      $bits(switch_csr__PORTx__PFC_THRx__XON__out_t) == $bits(thr_t) &&
      $bits(switch_csr__PORTx__WRED_Kx__KMAX__out_t) == $bits(qlen_t) &&
      $bits(switch_csr__PORTx__WRED_Px__P3__out_t) == $bits(pmax_t) &&
      $bits(switch_csr__WD_RECOVER_TIME__CYCLES__out_t) == $bits(wd_time_t) &&
      $bits(switch_csr__WD_WINDOW__CYCLES__out_t) == $bits(wd_time_t) &&
      $bits(switch_csr__WD_REENABLE__PORT__out_t) == $bits(port_num_t) &&
      $bits(switch_csr__TBL_RDATA__DATA__in_t) == $bits(tbl_data_t) &&
      $bits(switch_csr__GROUP_SKIPS__COUNT__in_t) == $bits(cnt_value_t) &&
      $bits(switch_csr__REMAPx__NEW_PRIO__out_t) == $bits(prio_t) &&
      $bits(switch_csr__REMAPx__NEW_DSCP__out_t) == $bits(dscp_t) &&
      $bits(switch_csr__WD_STATUS__STATE__in_t) == $bits(wd_state) / NumPorts &&
      $bits(switch_csr__CNT_SEL__KIND__out_t) == $bits(sw_counter_e))
  // verilog_format: on
  // The dynamic ECN fields a write is judged on, as wide as the values they
  // carry; WIN can name every legal window (up to the counter's width).
  // verilog_format: off
  `SF_STATIC_ASSERT(a_ecn_words,
      ECN_DYN_CTRL_WIN_WIDTH == $bits(ecn_win_t) &&
      ECN_DYN_PMAX_PLO_WIDTH == $bits(pmax_t) &&
      ECN_DYN_PMAX_PHI_WIDTH == $bits(pmax_t) &&
      EcnWinCntW < 2 ** $bits(ecn_win_t) && EcnWinMin <= EcnWinCntW &&
      $bits(switch_csr__ECN_DYN_K__KMIN__in_t) == $bits(qlen_t) &&
      $bits(switch_csr__ECN_DYN_STATE__PMAX__in_t) == $bits(pmax_t) &&
      $bits(switch_csr__ECN_DYN_STATE__SHIFT__in_t) == $bits(ecn_sh_t))
  // verilog_format: on
  // The occupancy a port's pfc_tx compares with XOFF/XON fits a threshold.
  `SF_STATIC_ASSERT(a_occ_fits_thr, CntW <= $bits(thr_t))

  // APB4 rules, requester and completer (zero wait states).
  apb_checker #(
    .AddrW  ($bits(csr_addr_t)),
    .DataW  ($bits(csr_data_t)),
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

  // Immediate forms, implications as `!(a) || (b)` (switch_ingress says why).
  `SF_ASSERT_IMM(a_accept_only_req, (accept & ~offer_valid) == '0)
  // Only a COMB packet taken now may have no copy.
  `SF_ASSERT_IMM(a_engine_mask_nonzero, !eng_active || eng_mask != '0 || eng_comb)
  // verilog_format: off
  // A multicast never goes back to its input; a COMB packet's copies are the
  // combine unit's (a release goes to every child, the sender included).
  `SF_ASSERT_IMM(a_engine_not_back_mc,
                 !(eng_active && eng_hdr.dst_lid >= MLID_BASE &&
                   !(eng_hdr.pkt_type inside {PktCombArrive, PktCombRelease, PktCombShare})) ||
                 !eng_mask[eng_in])
  // A COMB packet's copies are exactly the unit's decision, none outside the
  // MFT entry of its MLID (switch_combine checks the decision against it).
  `SF_ASSERT_IMM(a_engine_comb_copies, !eng_comb || eng_mask == cb_mask)
  // Partners are absorbed only in a cycle the engine takes a COMB_ARRIVE, at
  // other inputs, and never make a copy (the copies of the cycle, if any,
  // are the engine's packet's, at its input).
  `SF_ASSERT_IMM(a_cb_absorb_with_arrive,
                 cb_absorb == '0 || (eng_comb && eng_hdr.pkt_type == PktCombArrive &&
                                     !cb_absorb[eng_in] && (cb_absorb & ~pend_valid) == '0))
  `SF_ASSERT_IMM(a_cb_partner_no_copy, (cb_absorb & (eng_take | comb_valid)) == '0)
  // Holds: only a COMB packet's take holds it; a holding take with an
  // emission happens only where a fresh cell can be taken; a blocked take
  // takes nothing and writes nothing; a held head is retaken, never
  // absorbed.
  `SF_ASSERT_IMM(a_hold_on_comb_take, (eng_hold & ~(eng_take & comb_valid)) == '0)
  `SF_ASSERT_IMM(a_hold_cell_available,
                 !(eng_comb && cb_hold && cb_mask != '0) || in_cell_ok[eng_in])
  `SF_ASSERT_IMM(a_blocked_takes_nothing,
                 !eng_blocked || (eng_take == '0 && eng_mask == '0 && cb_absorb == '0 &&
                                  pend_ready == '0))
  `SF_ASSERT_IMM(a_held_not_absorbed, (cb_absorb & in_held) == '0)
  // verilog_format: on
  // verilog_format: off
  // One read port per input: two outputs stream from the same input only in
  // a shared read, every one of them reading a one-flit copy of the same
  // slot, from its one cell (the slot is its first cell). in_rd_req holds
  // one reader's address and slot: every reader agrees with it.
  `SF_ASSERT_IMM_FORALL(a_one_reader_or_shared, in_readers != '0, o, NumPorts,
                        out_busy[o] && in_readers[out_src[o]] > RefW'(1),
                        out_one[o] && out_rd_req[o].addr == out_rd_req[o].slot &&
                        out_rd_req[o].slot == in_rd_req[out_src[o]].slot &&
                        out_rd_req[o].addr == in_rd_req[out_src[o]].addr)
  // A shared match is one slot and one flit: every output accepted on an
  // input another accepted output also names offers that input's claimed
  // head, a one-flit packet.
  `SF_ASSERT_IMM_FORALL(a_shared_one_flit_one_slot, accept != '0, o, NumPorts,
                        accept[o] && !$onehot(in_pop[offer[o].in]),
                        off_one[o] && claim_one[offer[o].in] &&
                        off_slot[o] == claim_slot[offer[o].in])
  // And no sharer is left out: an output offering a claimed one-flit head
  // is accepted.
  `SF_ASSERT_IMM_FORALL(a_shared_read_whole, offer_valid != '0, o, NumPorts,
                        offer_valid[o] && claim_one[offer[o].in] &&
                        off_slot[o] == claim_slot[offer[o].in],
                        accept[o])
  // verilog_format: on
  // The reference counts fall by the copies ending: one per output whose
  // copy's last flit is read (or discarded) this cycle.
  function automatic int unsigned ends_total(logic [NumPorts-1:0][RefW-1:0] ends);
    int unsigned sum = 0;
    for (int i = 0; i < NumPorts; i++) sum += 32'(ends[i]);
    return sum;
  endfunction
  logic [NumPorts-1:0] out_last;
  for (genvar o = 0; o < NumPorts; o++) begin : gen_out_last
    assign out_last[o] = out_busy[o] && out_rd_req[o].last;
  end
  `SF_ASSERT_IMM(a_refcnt_dec_is_ends, ends_total(in_rd_ends) == 32'($countones(out_last)))

  // One packet per cycle switch-wide: the engine takes at most one input's
  // pending head, and only that input pushes copies.
  function automatic logic one_pusher(port_mask_t [NumPorts-1:0] push);
    port_mask_t any;
    for (int i = 0; i < NumPorts; i++) any[i] = push[i] != '0;
    return $onehot0(any);
  endfunction
  `SF_ASSERT_IMM_ONEHOT0(a_one_packet_per_cycle, eng_take)
  `SF_ASSERT_IMM(a_one_input_pushes, one_pusher(in_push))
  // verilog_format: off
  // All of the packet's copies in its cycle: the pushes and the WRED drops
  // are the packet's mask, split; WRED decides exactly the mask's copies.
  `SF_ASSERT_IMM(a_pushes_are_copies,
                 !eng_active || ((in_push[eng_in] | wred_drop) == eng_mask &&
                                 (in_push[eng_in] & wred_drop) == '0))
  `SF_ASSERT_IMM(a_wred_only_copies, ((wred_mark | wred_drop) & ~eng_mask) == '0)
  // The engine's input is the next one with a pending packet, round robin.
  `SF_ASSERT_IMM(a_engine_takes_pending, !eng_active || pend_valid[eng_in])
  // DROP_WRED only on a lossy queue or a lossless one its watchdog has
  // DISABLED; WRED acts only where WRED_EN is set.
  `SF_ASSERT_IMM_FORALL(a_wred_drop_lossy_or_disabled, wred_drop != '0, o, NumPorts,
                        wred_drop[o], !pfc_en[o][eng_q[o]] || pfc_off[o][eng_q[o]])
  `SF_ASSERT_IMM(a_wred_only_enabled, ((wred_mark | wred_drop) & ~wred_enable) == '0)
  // The prio and DSCP of a copy change only on a hook flow (remap on, input
  // and output both uplinks).
  `SF_ASSERT_IMM_FORALL(a_remap_only_hook, eng_active, o, NumPorts,
                        eng_mask[o] && (eng_q[o] != eng_hdr.prio || eng_dscp[o] != eng_hdr.dscp),
                        hwif_out.REMAP_CTRL.ENABLE.value && uplink[eng_in] && uplink[o])
  // verilog_format: on
  // Each VOQ pop is the accepted offer of one output.
  `SF_ASSERT_IMM(a_pop_is_accept, $countones(in_pop) == $countones(accept))

  // Corners the switch's coverage test must reach.
  // verilog_format: off
  `SF_COVER(c_ecn_mark, wred_mark != '0)
  `SF_COVER(c_drop_wred_lossy, (wred_drop & ~eng_lossless) != '0)
  `SF_COVER(c_drop_wred_disabled_lossless, (wred_drop & eng_lossless) != '0)
  `SF_COVER(c_hook_remap, (eng_mask & hook) != '0)
  // A multicast packet that goes to every other port, all its copies at once.
  `SF_COVER(c_mc_all_copies, eng_active && eng_hdr.dst_lid >= MLID_BASE &&
                             $countones(eng_mask) == NumPorts - 1)
  // verilog_format: on
  `SF_COVER(c_read_port_conflict, (offer_valid & ~accept) != '0)
  `SF_COVER(c_shared_read, share != '0)
  `SF_COVER(c_all_outputs_busy, &out_busy)

  // A pause for priority p leaves port i while a lossless packet of p is
  // still being received there (the headroom case). Cover bookkeeping only:
  // rx_mid_q, a packet or frame has started on rx and not ended; rx_lossless_q
  // and rx_prio_q, of that packet.
  logic [NumPorts-1:0] rx_mid_q, rx_lossless_q;
  prio_t [NumPorts-1:0] rx_prio_q;
  for (genvar i = 0; i < NumPorts; i++) begin : gen_rx_cover
    pkt_hdr_t rx_hdr;
    logic unused_rx_hdr;
    assign rx_hdr = pkt_hdr_t'(rx_data_i[i]);
    assign unused_rx_hdr = ^rx_hdr;  // only its type and prio matter here
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        rx_mid_q[i] <= 1'b0;
        rx_lossless_q[i] <= 1'b0;
        rx_prio_q[i] <= '0;
      end else if (rx_valid_i[i] && rx_ready_o[i]) begin
        rx_mid_q[i] <= !rx_last_i[i];
        if (!rx_mid_q[i]) begin
          rx_lossless_q[i] <= rx_hdr.pkt_type != PktPfc && pfc_en[i][rx_hdr.prio];
          rx_prio_q[i] <= rx_hdr.prio;
        end
      end
    end
    // verilog_format: off
    `SF_COVER(c_pause_mid_lossless_rx,
              rx_mid_q[i] && rx_lossless_q[i] && ev_pause_tx[i][rx_prio_q[i]])
    // verilog_format: on
  end

  logic unused_top;
  assign unused_top = ^{hwif_out, stop, xoff_tx, eng_hdr};

endmodule
