// The NIC's data path (docs/nic/dcqcn.md): its register block
// (nic_dcqcn_csr), the flow table (nic_dcqcn_flows), the reaction point's
// rate law and token bucket (nic_dcqcn_rp), the bulk sender
// (nic_dcqcn_sender), the receive side (nic_dcqcn_rx) and the notification
// point (nic_dcqcn_np). nic_top puts it beside the barrier engine: it routes
// DATA flits and one-flit CNPs here, and its network arbiter takes the CNP
// queue's head before the barrier engine's packets and the sender's DATA
// packets after them (§6).
//
// CNP header (§4), made when queued (nic_dcqcn_np): pkt_type CNP, len_flits
// 1, dst_lid the DATA packet's src_lid, src_lid NODE_LID.LID, prio
// NP_CFG.CNP_PRIO, ecn NOT_ECT, flow_label copied, every other field 0. It
// waits while NP_CFG.CNP_PRIO is paused (§6).

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_dcqcn
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
  import nic_dcqcn_reg_pkg::*;
#(
  localparam int unsigned AddrW = NIC_DCQCN_REG_TOP_MIN_ADDR_WIDTH,
  localparam int unsigned LidW  = PKT_HDR_DST_LID_W
) (
  input  logic             clk_i,
  input  logic             rst_ni,

  // APB4 completer (offsets inside the block)
  input  logic             psel_i,
  input  logic             penable_i,
  input  logic             pwrite_i,
  input  logic [2:0]       pprot_i,
  input  logic [AddrW-1:0] paddr_i,
  input  logic [31:0]      pwdata_i,
  input  logic [3:0]       pstrb_i,
  output logic [31:0]      prdata_o,
  output logic             pready_o,
  output logic             pslverr_o,

  input  logic [LidW-1:0]  own_lid_i,  // the barrier engine's NODE_LID.LID
  input  prio_mask_t       paused_i,   // PFC stop per priority

  // Receive: the flit on rx, taken this cycle
  input  flit_t            rx_data_i,
  input  logic             rx_last_i,
  input  logic             rx_data_valid_i,  // a DATA flit
  input  logic             rx_data_first_i,  // ... its header
  input  logic             rx_cnp_valid_i,   // a one-flit CNP

  // CNP queue head
  output logic             cnp_valid_o,
  output logic             cnp_paused_o,     // its priority is paused
  input  logic             cnp_shown_i,      // the arbiter shows it on tx
  input  logic             cnp_ready_i,
  output pkt_hdr_t         cnp_hdr_o,

  // DATA packets
  input  logic             data_allow_i,
  output logic             data_busy_o,
  output logic             data_valid_o,
  input  logic             data_ready_i,
  output flit_t            data_o,
  output logic             data_last_o
);

  localparam int unsigned FlowIdxW = (NUM_FLOWS > 1) ? $clog2(NUM_FLOWS) : 1;
  localparam int unsigned FlitsW = PKT_HDR_LEN_FLITS_W;
  localparam int unsigned LabelW = PKT_HDR_FLOW_LABEL_W;
  localparam int unsigned PrioW = PKT_HDR_PRIO_W;
  localparam int unsigned RateW = $clog2(RATE_LINE + 1);
  localparam int unsigned AlphaW = $clog2(ALPHA_ONE + 1);
  localparam int unsigned StageW = 8;
  localparam int unsigned CreditW = FlitsW + RATE_FRAC_BITS + 1;

  // ===========================================================================
  // Registers
  // ===========================================================================
  nic_dcqcn__in_t  hwif_in;
  nic_dcqcn__out_t hwif_out;
  logic [NUM_FLOWS-1:0] running;
  logic cmd_start, cmd_stop;
  logic [$bits(hwif_out.FLOW_CTRL.INDEX.value)-1:0] cmd_idx_full;

  nic_dcqcn_csr u_csr (
    .clk_i,
    .rst_ni,
    .psel_i,
    .penable_i,
    .pwrite_i,
    .pprot_i,
    .paddr_i,
    .pwdata_i,
    .pstrb_i,
    .prdata_o,
    .pready_o,
    .pslverr_o,
    .running_i(running),
    .start_o  (cmd_start),
    .stop_o   (cmd_stop),
    .cmd_idx_o(cmd_idx_full),
    .hwif_i   (hwif_in),
    .hwif_o   (hwif_out)
  );

  `SF_STATIC_ASSERT(gen_rate_regs_width, $bits(hwif_out.RATE_AI.RATE.value) == RateW)
  `SF_STATIC_ASSERT(gen_label_width, $bits(hwif_out.FLOW_LABEL.LABEL.value) == LabelW)
  `SF_STATIC_ASSERT(gen_prio_width, $bits(hwif_out.FLOW_CFG.PRIO.value) == PrioW && $bits
                    (hwif_out.NP_CFG.CNP_PRIO.value) == PrioW)
  `SF_STATIC_ASSERT(gen_payload_width, $bits(hwif_out.FLOW_CFG.PAYLOAD_FLITS.value) == FlitsW)

  logic [FlowIdxW-1:0] cmd_idx;
  assign cmd_idx = FlowIdxW'(cmd_idx_full);

  // ===========================================================================
  // Flow table
  // ===========================================================================
  flow_state_e [NUM_FLOWS-1:0]      flow_state;
  flow_err_e   [NUM_FLOWS-1:0]      flow_err;
  logic [NUM_FLOWS-1:0][LidW-1:0]   flow_dst;
  logic [NUM_FLOWS-1:0][FlitsW-1:0] flow_payload;
  logic [NUM_FLOWS-1:0][PrioW-1:0]  flow_prio;
  logic [NUM_FLOWS-1:0]             flow_ect;
  logic [NUM_FLOWS-1:0][LabelW-1:0] flow_label;
  logic [NUM_FLOWS-1:0][31:0] flow_pkts, flow_sent, flow_cnp;

  logic grant, done, cnp;
  logic [FlowIdxW-1:0] grant_idx, done_idx, cnp_idx;
  logic [FlitsW-1:0] grant_flits;

  nic_dcqcn_flows u_flows (
    .clk_i,
    .rst_ni,
    .own_lid_i    (own_lid_i),
    .start_i      (cmd_start),
    .stop_i       (cmd_stop),
    .idx_i        (cmd_idx),
    .stg_dst_i    (hwif_out.FLOW_DST.LID.value),
    .stg_payload_i(hwif_out.FLOW_CFG.PAYLOAD_FLITS.value),
    .stg_prio_i   (hwif_out.FLOW_CFG.PRIO.value),
    .stg_ect_i    (hwif_out.FLOW_CFG.ECT.value),
    .stg_label_i  (hwif_out.FLOW_LABEL.LABEL.value),
    .stg_pkts_i   (hwif_out.FLOW_COUNT.PKTS.value),
    .grant_i      (grant),
    .grant_idx_i  (grant_idx),
    .done_i       (done),
    .done_idx_i   (done_idx),
    .cnp_i        (cnp),
    .cnp_idx_i    (cnp_idx),
    .state_o      (flow_state),
    .err_o        (flow_err),
    .running_o    (running),
    .dst_o        (flow_dst),
    .payload_o    (flow_payload),
    .prio_o       (flow_prio),
    .ect_o        (flow_ect),
    .label_o      (flow_label),
    .pkts_o       (flow_pkts),
    .sent_o       (flow_sent),
    .cnp_cnt_o    (flow_cnp)
  );

  // ===========================================================================
  // Reaction point
  // ===========================================================================
  logic [NUM_FLOWS-1:0][RateW-1:0] rc, rt;
  logic [NUM_FLOWS-1:0][AlphaW-1:0] alpha;
  logic [NUM_FLOWS-1:0][StageW-1:0] t_stage, bc_stage;
  logic [NUM_FLOWS-1:0][CreditW-1:0] credit;
  logic [NUM_FLOWS-1:0] tx_ok;
  logic [NUM_FLOWS-1:0][FlitsW-1:0] rp_payload;
  logic [NUM_FLOWS-1:0] rp_running;

  // An entry whose last flit leaves in cycle t is DONE in t: the rate law
  // at the end of t no longer runs for it (§2, §5: only a RUNNING entry's
  // rate state changes; the cycle's events come before its end).
  assign rp_running = running & ~(done ? (NUM_FLOWS'(1) << done_idx) : '0);

  // START fills the bucket to the new flow's C at the end of its cycle,
  // while the table still holds the entry's previous configuration: the
  // reaction point sees the staged length in that cycle.
  always_comb begin
    rp_payload = flow_payload;
    if (cmd_start) begin
      rp_payload[cmd_idx] = hwif_out.FLOW_CFG.PAYLOAD_FLITS.value;
    end
  end

  nic_dcqcn_rp u_rp (
    .clk_i,
    .rst_ni,
    .g_shift_i      (hwif_out.ALPHA_CFG.G_SHIFT.value),
    .alpha_timer_i  (hwif_out.ALPHA_TIMER.CYCLES.value),
    .rate_timer_i   (hwif_out.RATE_TIMER.CYCLES.value),
    .byte_counter_i (hwif_out.BYTE_COUNTER.FLITS.value),
    .stages_i       (hwif_out.RATE_STAGES.F.value),
    .rate_ai_i      (hwif_out.RATE_AI.RATE.value),
    .rate_hai_i     (hwif_out.RATE_HAI.RATE.value),
    .rate_min_i     (hwif_out.RATE_MIN.RATE.value),
    .rp_enable_i    (hwif_out.CTRL.RP_ENABLE.value),
    .running_i      (rp_running),
    .payload_flits_i(rp_payload),
    .start_i        (cmd_start),
    .start_idx_i    (cmd_idx),
    .cnp_i          (cnp),
    .cnp_idx_i      (cnp_idx),
    .grant_i        (grant),
    .grant_idx_i    (grant_idx),
    .grant_flits_i  (grant_flits),
    .rc_o           (rc),
    .rt_o           (rt),
    .alpha_o        (alpha),
    .t_stage_o      (t_stage),
    .bc_stage_o     (bc_stage),
    .credit_o       (credit),
    .tx_ok_o        (tx_ok)
  );

  // ===========================================================================
  // Bulk sender
  // ===========================================================================
  nic_dcqcn_sender u_sender (
    .clk_i,
    .rst_ni,
    .own_lid_i    (own_lid_i),
    .paused_i     (paused_i),
    .running_i    (running),
    .dst_i        (flow_dst),
    .payload_i    (flow_payload),
    .prio_i       (flow_prio),
    .ect_i        (flow_ect),
    .label_i      (flow_label),
    .pkts_i       (flow_pkts),
    .sent_i       (flow_sent),
    .tx_ok_i      (tx_ok),
    .start_i      (cmd_start),
    .start_idx_i  (cmd_idx),
    .allow_i      (data_allow_i),
    .busy_o       (data_busy_o),
    .tx_valid_o   (data_valid_o),
    .tx_ready_i   (data_ready_i),
    .tx_data_o    (data_o),
    .tx_last_o    (data_last_o),
    .grant_o      (grant),
    .grant_idx_o  (grant_idx),
    .grant_flits_o(grant_flits),
    .done_o       (done),
    .done_idx_o   (done_idx)
  );

  // ===========================================================================
  // Receive side and notification point
  // ===========================================================================
  logic evt_rx, evt_ce, evt_drop, evt_cnp_unknown, evt_suppressed, evt_np_drop;
  logic [FlitsW-1:0] evt_rx_flits;
  logic np_ce;
  logic [LidW-1:0] np_src;
  logic [LabelW-1:0] np_label;

  nic_dcqcn_rx u_rx (
    .clk_i,
    .rst_ni,
    .own_lid_i        (own_lid_i),
    .np_enable_i      (hwif_out.CTRL.NP_ENABLE.value),
    .rx_data_i        (rx_data_i),
    .rx_last_i        (rx_last_i),
    .data_valid_i     (rx_data_valid_i),
    .data_first_i     (rx_data_first_i),
    .cnp_valid_i      (rx_cnp_valid_i),
    .running_i        (rp_running),
    .dst_i            (flow_dst),
    .label_i          (flow_label),
    .evt_rx_o         (evt_rx),
    .evt_rx_flits_o   (evt_rx_flits),
    .evt_ce_o         (evt_ce),
    .evt_drop_o       (evt_drop),
    .np_ce_o          (np_ce),
    .np_src_o         (np_src),
    .np_label_o       (np_label),
    .cnp_o            (cnp),
    .cnp_idx_o        (cnp_idx),
    .evt_cnp_unknown_o(evt_cnp_unknown)
  );

  nic_dcqcn_np u_np (
    .clk_i,
    .rst_ni,
    .interval_i      (hwif_out.CNP_INTERVAL.CYCLES.value),
    .own_lid_i       (own_lid_i),
    .prio_i          (hwif_out.NP_CFG.CNP_PRIO.value),
    .ce_i            (np_ce),
    .ce_src_i        (np_src),
    .ce_label_i      (np_label),
    .cnp_valid_o     (cnp_valid_o),
    .cnp_shown_i     (cnp_shown_i),
    .cnp_ready_i     (cnp_ready_i),
    .cnp_hdr_o       (cnp_hdr_o),
    .evt_suppressed_o(evt_suppressed),
    .evt_drop_o      (evt_np_drop)
  );

  assign cnp_paused_o = paused_i[hwif_out.NP_CFG.CNP_PRIO.value];

  // ===========================================================================
  // Register inputs
  // ===========================================================================
  logic [FlowIdxW-1:0] sel;
  logic [NUM_FLOWS-1:0] done_mask, error_mask;
  assign sel = FlowIdxW'(hwif_out.FLOW_SEL.INDEX.value);

  always_comb begin
    for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
      done_mask[f]  = flow_state[f] == FlowDone;
      error_mask[f] = flow_state[f] == FlowError;
    end
  end

  always_comb begin
    hwif_in.HW_CFG.NUM_FLOWS.next      = 8'(NUM_FLOWS);
    hwif_in.HW_CFG.NP_SLOTS.next       = 8'(NP_SLOTS);
    hwif_in.HW_CFG.CNP_QUEUE.next      = 8'(CNP_QUEUE_DEPTH);
    hwif_in.FLOW_SUMMARY.RUNNING.next  = 8'(running);
    hwif_in.FLOW_SUMMARY.DONE.next     = 8'(done_mask);
    hwif_in.FLOW_SUMMARY.ERROR.next    = 8'(error_mask);
    hwif_in.FLOW_STATUS.STATE.next     = flow_state[sel];
    hwif_in.FLOW_STATUS.ERR.next       = flow_err[sel];
    hwif_in.FLOW_SENT.PKTS.next        = flow_sent[sel];
    hwif_in.FLOW_RATE.RC.next          = rc[sel];
    hwif_in.FLOW_TARGET.RT.next        = rt[sel];
    hwif_in.FLOW_ALPHA.ALPHA.next      = alpha[sel];
    hwif_in.FLOW_CNP.COUNT.next        = flow_cnp[sel];
    hwif_in.CNT_DATA_TX.COUNT.incr     = grant;
    hwif_in.CNT_DATA_TX_FLITS.COUNT.incr      = grant;
    hwif_in.CNT_DATA_TX_FLITS.COUNT.incrvalue = grant_flits;
    hwif_in.CNT_DATA_RX.COUNT.incr     = evt_rx;
    hwif_in.CNT_DATA_RX_FLITS.COUNT.incr      = evt_rx && evt_rx_flits != '0;
    hwif_in.CNT_DATA_RX_FLITS.COUNT.incrvalue = evt_rx_flits;
    hwif_in.CNT_DATA_RX_CE.COUNT.incr  = evt_ce;
    hwif_in.CNT_DATA_DROP.COUNT.incr   = evt_drop;
    hwif_in.CNT_CNP_TX.COUNT.incr      = cnp_valid_o && cnp_ready_i;
    hwif_in.CNT_CNP_RX.COUNT.incr      = cnp;
    hwif_in.CNT_CNP_UNKNOWN.COUNT.incr = evt_cnp_unknown;
    hwif_in.CNT_CNP_SUPPRESSED.COUNT.incr = evt_suppressed;
    hwif_in.CNT_CNP_DROP.COUNT.incr    = evt_np_drop;
  end

  // The rate state's stages and the credits are internal (the test reads
  // them through the hierarchy).
  logic unused;
  // FLOW_CTRL's START and STOP act from the wrapper (start_o, stop_o), in
  // the cycle of the write; the INDEX the register block keeps is for reads.
  assign unused = ^{t_stage, bc_stage, credit, hwif_out.CTRL.CNT_CLEAR.value,
                    hwif_out.FLOW_CTRL.START.value, hwif_out.FLOW_CTRL.STOP.value,
                    hwif_out.FLOW_CTRL.INDEX.value, cmd_idx_full};

  // verilog_format: off
  // The arbiter takes a CNP only from a non-empty queue.
  `NIC_ASSERT_IMP(a_cnp_taken_valid, cnp_ready_i, cnp_valid_o)
  // verilog_format: on

endmodule
