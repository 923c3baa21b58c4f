// One output port of the switch (docs/switch-datapath.md, "Egress"): which
// egress queues may send (pfc_rx stop, watchdog ignore), the SP + WDRR
// scheduler, a round robin over the inputs holding a copy of the granted
// queue, the copy stream from that input's buffer with the header patched
// (prio, ECN, DSCP of the copy), watchdog drop mode, and the pause frames of
// this port's own ingress (pfc_tx) sent between packets.
//
// Matching: every output that is free from the next cycle on (idle, or its
// copy's or pause frame's last flit leaves this cycle) and has no pause frame
// waiting offers its scheduler's grant (queue and the input its round robin
// picked; the grant does not depend on ready_i). The top accepts offers in
// round-robin output order, one per input, and the scheduler's ready_i is
// "free and (no grant, or the grant was accepted)": a credit-only cycle still
// moves the scheduler, a grant that lost its input to another output leaves
// the scheduler state unchanged for the next cycle. A copy matched in the
// cycle the previous one's last flit leaves sends its header the next cycle,
// so copies leave back to back at line rate. An input streaming a copy is not
// a candidate unless that copy's last flit is read this cycle (in_busy_i,
// switch_top): its read port is free from the next cycle on. The top may
// accept this output's offer together with another output's on the same
// input (a shared read of a one-flit packet); nothing here changes for it:
// the copy reads its one cell, which is the same cell for every sharer.

`include "syncfab_assert.svh"
`include "switch_types.svh"

module switch_egress
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned BufCells = 256,
  localparam int unsigned PortW = `SF_SWITCH_PORT_W(NumPorts),
  localparam type port_t = logic [PortW-1:0],
  localparam type port_mask_t = logic [NumPorts-1:0],
  localparam type offer_t = `SF_SWITCH_OFFER_T,
  localparam int unsigned CellW = `SF_SWITCH_CELL_W(BufCells),
  localparam int unsigned CntW = `SF_SWITCH_CNT_W(BufCells),
  localparam type cell_t = logic [CellW-1:0],
  localparam type cnt_t = logic [CntW-1:0],
  localparam type pop_rsp_t = `SF_SWITCH_POP_RSP_T,
  localparam type rd_req_t = `SF_SWITCH_RD_REQ_T,
  localparam type rd_rsp_t = `SF_SWITCH_RD_RSP_T
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  // Configuration of this port (CSRs)
  input  prio_mask_t                          pfc_en_i,
  input  prio_mask_t                          sp_mask_i,
  input  weight_t [NumPrio-1:0]               weight_i,
  input  prio_mask_t                          wd_enable_i,
  input  logic                                wd_drop_mode_i,
  input  prio_mask_t                          wd_reenable_i,
  input  thr_t [NumPrio-1:0]                  xoff_thr_i,
  input  thr_t [NumPrio-1:0]                  xon_thr_i,
  input  quanta_t [NumPrio-1:0]               quanta_i,
  // Global PFC / watchdog timing
  input  cpq_t                                cyc_per_quantum_i,
  input  refresh_t                            refresh_i,
  input  wd_time_t                            wd_detect_i,
  input  wd_time_t                            wd_recover_i,
  input  wd_time_t                            wd_window_i,
  input  wd_limit_t                           wd_limit_i,
  // This port's ingress occupancy (pfc_tx) and received PFC frames (pfc_rx)
  input  cnt_t [NumPrio-1:0]                  occ_i,
  input  logic                                pfc_valid_i,
  input  pfc_rx_frame_t                       pfc_i,
  // VOQ heads of every input for this output
  input  logic [NumPorts-1:0][NumPrio-1:0]    voq_valid_i,
  input  len_t [NumPorts-1:0][NumPrio-1:0]    voq_len_i,
  input  logic [NumPorts-1:0]                 in_busy_i,
  // Matching: the grant this output offers (input, queue); ready = the top
  // accepted it, and pop_rsp_i is then the head of that input's VOQ
  output logic                                offer_valid_o,
  input  logic                                offer_ready_i,
  output offer_t                              offer_o,
  input  pop_rsp_t                            pop_rsp_i,
  // Read port of input rd_src_o while a copy streams (rd_valid_o);
  // rd_one_o: the copy is one flit (its only cell is read)
  output logic                                rd_valid_o,
  output port_t                               rd_src_o,
  output rd_req_t                             rd_req_o,
  output logic                                rd_one_o,
  input  rd_rsp_t                             rd_rsp_i,
  // Transmit stream
  output logic                                tx_valid_o,
  input  logic                                tx_ready_i,
  output flit_t                               tx_data_o,
  output logic                                tx_last_o,
  // Events and state
  output out_ev_t                             ev_o,
  output wd_state_e [NumPrio-1:0]             wd_state_o,
  output prio_mask_t                          pfc_off_o,
  output prio_mask_t                          stop_o /* verilator public_flat_rd */,
  output prio_mask_t                          xoff_tx_o
);

  typedef enum logic [1:0] {
    OutIdle,
    OutData,
    OutPfc1
  } out_state_e;

  // ---------------------------------------------------------------------------
  // PFC blocks
  // ---------------------------------------------------------------------------
  logic frame_valid, frame_ready;
  prio_mask_t frame_class;
  pfc_quanta_t frame_quanta;
  // The occupancy as wide as the thresholds it is compared with.
  thr_t [NumPrio-1:0] occ_thr;
  for (genvar p = 0; p < NumPrio; p++) begin : gen_occ
    assign occ_thr[p] = thr_t'(occ_i[p]);
  end
  prio_mask_t ev_pause_tx, ev_resume_tx, ev_pause_rx, ev_resume_rx;
  prio_mask_t ev_wd_detect, ev_wd_recover, ev_wd_disable;

  pfc_tx #(
    .NumPrio(NumPrio),
    .OccW($bits(thr_t)),
    .RefW($bits(refresh_t))
  ) u_pfc_tx (
    .clk_i,
    .rst_ni,
    .enable_i(pfc_en_i),
    .occ_i(occ_thr),
    .xoff_thr_i,
    .xon_thr_i,
    .quanta_i,
    .refresh_i,
    .frame_valid_o(frame_valid),
    .frame_ready_i(frame_ready),
    .frame_class_enable_o(frame_class),
    .frame_quanta_o(frame_quanta),
    .xoff_o(xoff_tx_o),
    .evt_xoff_tx_o(ev_pause_tx),
    .evt_xon_tx_o(ev_resume_tx)
  );

  // Read by the fabric tests' probes (sim/fabric/switch/switch_probe.cpp).
  prio_mask_t xoff_rx  /* verilator public_flat_rd */;
  prio_mask_t wd_ignore, wd_drop;
  pfc_rx #(
    .NumPrio(NumPrio),
    .CpqW($bits(cpq_t))
  ) u_pfc_rx (
    .clk_i,
    .rst_ni,
    .enable_i(pfc_en_i),
    .cyc_per_quantum_i,
    .frame_valid_i(pfc_valid_i),
    .frame_class_enable_i(pfc_i.class_enable),
    .frame_quanta_i(pfc_i.quanta),
    .ignore_i(wd_ignore),
    .xoff_o(xoff_rx),
    .stop_o,
    .evt_xoff_rx_o(ev_pause_rx),
    .evt_xon_rx_o(ev_resume_rx)
  );

  pfc_watchdog #(
    .NumPrio(NumPrio),
    .TimeW($bits(wd_time_t)),
    .CntW($bits(wd_limit_t))
  ) u_pfc_watchdog (
    .clk_i,
    .rst_ni,
    .enable_i(wd_enable_i),
    .xoff_i(xoff_rx),
    .detect_i(wd_detect_i),
    .recover_i(wd_recover_i),
    .drop_mode_i(wd_drop_mode_i),
    .window_i(wd_window_i),
    .limit_i(wd_limit_i),
    .reenable_i(wd_reenable_i),
    .ignore_o(wd_ignore),
    .drop_o(wd_drop),
    .pfc_off_o,
    .state_o(wd_state_o),
    .evt_detect_o(ev_wd_detect),
    .evt_recover_o(ev_wd_recover),
    .evt_disable_o(ev_wd_disable)
  );

  // ---------------------------------------------------------------------------
  // Candidates: per queue, a round robin over inputs holding a copy
  // ---------------------------------------------------------------------------
  port_t [NumPrio-1:0] rr_q, rr_d, pick;
  prio_mask_t q_any, q_valid;
  len_t [NumPrio-1:0] q_len;
  // The inputs holding a copy of queue q (state only), and of those the ones
  // whose read port is free from the next cycle on.
  port_mask_t [NumPrio-1:0] holds, cand;
  always_comb begin
    for (int q = 0; q < NumPrio; q++) begin
      for (int i = 0; i < NumPorts; i++) begin
        holds[q][i] = voq_valid_i[i][q];
      end
      cand[q] = holds[q] & ~in_busy_i;
    end
  end
  // Inputs from rr_q[q] upwards first, then wrapping around.
  for (genvar q = 0; q < NumPrio; q++) begin : gen_cand
    rr_pick #(
      .N(NumPorts)
    ) u_pick (
      .mask_i(cand[q]),
      .start_i(rr_q[q]),
      .any_o(q_any[q]),
      .idx_o(pick[q])
    );
    assign q_len[q] = voq_len_i[pick[q]][q];
  end
  assign q_valid = q_any & ~stop_o;

  out_state_e state_q, state_d;
  len_t rem_q;
  logic discard_q;
  logic grant_valid;
  prio_t grant_q;

  // The current copy's (or pause frame's) last flit leaves this cycle. Kept
  // out of the stream's always_comb: done_o reaches the other outputs'
  // candidates (in_busy_i) and comes back here through the matching.
  logic fire, data_last, pfc_last, last_out;
  assign fire = state_q == OutData && (discard_q || tx_ready_i);
  assign data_last = fire && rem_q == len_t'(1);
  assign pfc_last = state_q == OutPfc1 && tx_ready_i;
  assign last_out = data_last || pfc_last;

  // Free for a new copy from the next cycle on, no pause frame waiting.
  logic can_match;
  assign can_match = (state_q == OutIdle || last_out) && !frame_valid;
  logic sched_ready;
  assign sched_ready = can_match && (!grant_valid || offer_ready_i);

  sp_wdrr_sched #(
    .NumQ(NumPrio),
    .LenW($bits(len_t)),
    .WeightW($bits(weight_t))
  ) u_sched (
    .clk_i,
    .rst_ni,
    .q_valid_i(q_valid),
    .q_len_i(q_len),
    .sp_mask_i,
    .weight_i,
    .ready_i(sched_ready),
    .grant_valid_o(grant_valid),
    .grant_q_o(grant_q)
  );

  // The offer is accepted: the copy starts (its header leaves next cycle).
  logic match;
  assign offer_valid_o = can_match && grant_valid;
  assign match = offer_ready_i && offer_valid_o;
  assign offer_o = '{in: pick[grant_q], q: grant_q};

  always_comb begin
    rr_d = rr_q;
    if (match) rr_d[grant_q] = (32'(pick[grant_q]) == NumPorts - 1) ? '0 : pick[grant_q] + 1'b1;
  end

  // ---------------------------------------------------------------------------
  // Output stream
  // ---------------------------------------------------------------------------
  port_t src_q, src_d;
  cell_t slot_q, slot_d, cell_q, cell_d;
  len_t rem_d;
  logic first_q, first_d, discard_d;
  hdr_patch_t patch_q, patch_d;
  prio_t oq_q, oq_d;
  pfc_quanta_t pfc_q1_q, pfc_q1_d;

  pkt_hdr_t hdr_in, hdr_out;
  assign hdr_in = pkt_hdr_t'(rd_rsp_i.data);
  always_comb begin
    hdr_out = hdr_in;
    hdr_out.prio = patch_q.prio;
    hdr_out.ecn = patch_q.ecn;
    hdr_out.dscp = patch_q.dscp;
  end

  // First flit of a PFC frame (the quanta are the second flit).
  pfc_frame_t frame;
  always_comb begin
    frame = '0;
    frame.pkt_type = PktPfc;
    frame.len_flits = PFC_FRAME_LEN_FLITS_W'(2);
    frame.class_enable = frame_class;
  end

  assign ev_o = '{
          tx: data_last && !discard_q,
          drop_wd: data_last && discard_q,
          q: oq_q,
          pause_tx: ev_pause_tx,
          resume_tx: ev_resume_tx,
          pause_rx: ev_pause_rx,
          resume_rx: ev_resume_rx,
          wd_detect: ev_wd_detect,
          wd_recover: ev_wd_recover,
          wd_disable: ev_wd_disable
      };

  always_comb begin
    state_d = state_q;
    src_d = src_q;
    slot_d = slot_q;
    cell_d = cell_q;
    rem_d = rem_q;
    first_d = first_q;
    discard_d = discard_q;
    patch_d = patch_q;
    oq_d = oq_q;
    pfc_q1_d = pfc_q1_q;
    tx_valid_o = 1'b0;
    tx_data_o = rd_rsp_i.data;
    tx_last_o = 1'b0;
    frame_ready = 1'b0;
    unique case (state_q)
      OutIdle: begin
        if (frame_valid) begin
          // A pause / resume frame goes before any waiting data packet.
          tx_valid_o = 1'b1;
          tx_data_o = frame[FLIT_BITS-1:0];
          frame_ready = tx_ready_i;
          if (tx_ready_i) begin
            pfc_q1_d = frame_quanta;
            state_d = OutPfc1;
          end
        end
      end
      OutPfc1: begin
        tx_valid_o = 1'b1;
        tx_data_o = pfc_q1_q;
        tx_last_o = 1'b1;
        if (tx_ready_i) state_d = OutIdle;
      end
      OutData: begin
        tx_valid_o = !discard_q;
        tx_data_o = first_q ? flit_t'(hdr_out) : rd_rsp_i.data;
        tx_last_o = rem_q == len_t'(1);
        if (fire) begin
          cell_d = rd_rsp_i.next;
          rem_d = rem_q - len_t'(1);
          first_d = 1'b0;
          if (rem_q == len_t'(1)) state_d = OutIdle;
        end
      end
      default: state_d = OutIdle;
    endcase
    // A match (idle, or in the last flit's cycle) loads the next copy, whose
    // header leaves the next cycle.
    if (match) begin
      state_d = OutData;
      src_d = offer_o.in;
      slot_d = pop_rsp_i.slot;
      cell_d = pop_rsp_i.slot;  // a slot is its packet's first cell
      rem_d = voq_len_i[offer_o.in][grant_q];
      first_d = 1'b1;
      patch_d = pop_rsp_i.patch;
      oq_d = grant_q;
      discard_d = wd_drop[grant_q];
    end
  end

  assign rd_valid_o = state_q == OutData;
  assign rd_src_o = src_q;
  assign rd_req_o = '{addr: cell_q, last: data_last, slot: slot_q};
  assign rd_one_o = first_q && rem_q == len_t'(1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= OutIdle;
      src_q <= '0;
      slot_q <= '0;
      cell_q <= '0;
      rem_q <= '0;
      first_q <= 1'b0;
      discard_q <= 1'b0;
      patch_q <= '0;
      oq_q <= '0;
      pfc_q1_q <= '0;
      rr_q <= '0;
    end else begin
      state_q <= state_d;
      src_q <= src_d;
      slot_q <= slot_d;
      cell_q <= cell_d;
      rem_q <= rem_d;
      first_q <= first_d;
      discard_q <= discard_d;
      patch_q <= patch_d;
      oq_q <= oq_d;
      pfc_q1_q <= pfc_q1_d;
      rr_q <= rr_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------
  // Immediate forms, implications as `!(a) || (b)` (switch_ingress says
  // why); a rule about the next cycle reads the next-state values.
  // A data packet is never interrupted by a PFC frame: a frame starts only
  // from idle, and a started packet runs to its last flit.
  `SF_ASSERT_IMM(a_pfc_not_inside_packet, !frame_ready || state_q == OutIdle)
  // verilog_format: off
  `SF_ASSERT_IMM(a_data_runs_to_last,
                 !(state_q == OutData && !data_last) || (state_d == OutData && slot_d == slot_q))
  // verilog_format: on
  // The same rule seen at the port: from the handshake of a data flit that
  // is not its packet's last until its last flit, tx carries only that
  // packet's flits (no pause frame, no header).
  logic tx_mid_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) tx_mid_q <= 1'b0;
    else if (tx_valid_o && tx_ready_i) tx_mid_q <= state_q == OutData && !tx_last_o;
  end
  // verilog_format: off
  `SF_ASSERT_IMM(a_tx_packet_whole,
                 !(tx_mid_q && tx_valid_o) || (state_q == OutData && !first_q))
  // Matching only when free from the next cycle on (idle, or the last flit
  // of a copy or pause frame leaves now) and no pause frame is waiting.
  `SF_ASSERT_IMM(a_match_only_free,
                 !match || ((state_q == OutIdle || last_out) && !frame_valid))
  // Line rate: when a copy is eligible (a grant, accepted) in the cycle the
  // last flit of a copy or pause frame leaves, the next copy's header is
  // the next cycle's flit: no idle cycle between the two.
  `SF_ASSERT_IMM(a_no_gap_after_last,
                 !(last_out && !frame_valid && grant_valid && offer_ready_i) ||
                 (state_d == OutData && first_d))
  `SF_ASSERT_IMM(a_match_from_candidate,
                 !match || (voq_valid_i[offer_o.in][offer_o.q] && !in_busy_i[offer_o.in]))
  `SF_ASSERT_IMM(a_match_not_stopped, !match || !stop_o[offer_o.q])
  `SF_ASSERT_IMM(a_accept_only_offered, !offer_ready_i || offer_valid_o)
  `SF_ASSERT_IMM(a_copy_len_nonzero, state_q != OutData || rem_q != '0)
  `SF_ASSERT_IMM_NXT(a_tx_stable, tx_valid_o && !tx_ready_i, tx_valid_o)
  // Watchdog drop mode: a copy is discarded only when, at its match, its
  // queue's watchdog recovers in drop mode (RECOVER with drop), and a
  // discarded copy puts nothing on the wire.
  `SF_ASSERT_IMM(a_discard_only_drop_mode,
                 !(match && discard_d) ||
                 (wd_drop[offer_o.q] && wd_state_o[offer_o.q] == WdRecover))
  // verilog_format: on
  `SF_ASSERT_IMM(a_discard_silent, !(state_q == OutData && discard_q) || !tx_valid_o)

  // Corners the switch's coverage test must reach.
  `SF_COVER(c_pause_rx_mid_copy, state_q == OutData && !first_q && ev_pause_rx[oq_q])
  `SF_COVER(c_queue_stopped, (q_any & stop_o) != '0)
  `SF_COVER(c_pause_frame_sent, ev_pause_tx != '0)
  `SF_COVER(c_resume_frame_sent, ev_resume_tx != '0)
  `SF_COVER(c_frame_waits_for_copy, frame_valid && state_q == OutData)
  `SF_COVER(c_copy_after_frame, pfc_last && match)
  `SF_COVER(c_back_to_back, data_last && match)
  `SF_COVER(c_tx_stall_mid_copy, state_q == OutData && !first_q && !tx_ready_i && !discard_q)
  `SF_COVER(c_drop_wd, ev_o.drop_wd)
  `SF_COVER(c_wd_detect, ev_wd_detect != '0)
  `SF_COVER(c_wd_disable, ev_wd_disable != '0)
  `SF_COVER(c_offer_refused, offer_valid_o && !offer_ready_i)

  logic unused_egress;
  assign unused_egress = ^{frame[PFC_FRAME_BITS-1:FLIT_BITS]};

endmodule
