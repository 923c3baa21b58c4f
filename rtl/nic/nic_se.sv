// SE: the receive side of the barrier engine.
//
// Implements docs/barrier-protocol.md §4 (receiving a NOTIFY) and the SE half
// of §5 (activation drains the context's parked notifications). Per context it
// holds the active descriptor's expected-source table and the received marks,
// and tells TE how many leading rounds are fully heard (§6 round gate).
//
// Pipeline: none. A header taken in cycle t is judged against the state
// registered before t, and its mark / park / response take effect at the edge
// ending t, so the next header already sees them.
//
// Stalls (rx_ready_o low): an activation is offered, a drain or a soft-reset
// flush is running, or the response FIFO is full.
//
// Interfaces (all valid/ready; details in docs/nic/se.md):
//   rx_*    headers from the network receive demux (NOTIFYs; ACK/NACK go to
//           TE, other types are dropped by the demux). SE still applies §4
//           rule 1 itself, so the block is correct on its own.
//   act_*   OF activates a validated descriptor on a context.
//   fin_*   the context's descriptor finished (completion queued or aborted):
//           the context goes idle and its epoch becomes the last epoch.
//   resp_*  ACK/NACK headers to the network arbiter.
//   per context: active, rounds heard, all received.
//   evt_*   one-cycle pulses for the event counters (CNT_NOTIF_RECV, CNT_DUP,
//           CNT_DROP, CNT_NACK_SENT) and the debug verdict (trace vocabulary
//           `se.match/park/dup/drop/nack`, §9).

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_se
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  parameter int unsigned NumCtx       = NumCtxDefault,
  parameter int unsigned ReqDamqSlots = ReqDamqSlotsDefault,
  parameter int unsigned RespDepth    = 2,
  localparam int unsigned CtxIdxW = (NumCtx > 1) ? $clog2(NumCtx) : 1,
  localparam int unsigned DamqCntW = $clog2(ReqDamqSlots + 1)
) (
  input  logic                           clk_i,
  input  logic                           rst_ni,
  // Configuration (CSRs).
  input  lid_t                           own_lid_i,
  input  logic                           enable_i,       // CTRL.ENABLE
  // CTRL.SOFT_RESET pulse (§8): every context, the request DAMQ and the
  // queued responses go. Contexts clear at once; the DAMQ is then walked out,
  // one entry per cycle, uncounted (flush_busy_o), with rx and act refused.
  input  logic                           soft_reset_i,
  // Received headers.
  input  logic                           rx_valid_i,
  output logic                           rx_ready_o,
  input  pkt_hdr_t                       rx_hdr_i,
  // Activation of a validated descriptor (OF). The context must be idle.
  input  logic                           act_valid_i,
  output logic                           act_ready_o,
  input  logic [CtxIdxW-1:0]             act_ctx_i,
  input  epoch_t                         act_epoch_i,
  input  nround_t                        act_num_rounds_i,  // <= MAX_ROUNDS
  input  logic [7:0]                     act_fanout_i,      // 1 .. K_MAX
  input  src_table_t                     act_src_i,         // round r slot k expected LID
  // The descriptor on fin_ctx_i finished (no ready: always taken).
  input  logic                           fin_valid_i,
  input  logic [CtxIdxW-1:0]             fin_ctx_i,
  // Responses.
  output logic                           resp_valid_o,
  input  logic                           resp_ready_i,
  output pkt_hdr_t                       resp_hdr_o,
  // Per-context status for TE and completion.
  output logic    [NumCtx-1:0]           ctx_active_o,
  output nround_t [NumCtx-1:0]           rounds_heard_o,  // leading rounds fully received
  output logic    [NumCtx-1:0]           all_recv_o,      // active and every round heard
  // Event pulses (at most one of recv/dup/drop/nack per cycle).
  output logic                           evt_rx_o,        // a header was taken
  output logic                           evt_recv_o,      // CNT_NOTIF_RECV
  output logic                           evt_dup_o,       // CNT_DUP
  output logic                           evt_drop_o,      // CNT_DROP
  output logic                           evt_nack_o,      // CNT_NACK_SENT
  output se_verdict_e                    rx_verdict_o,    // valid with evt_rx_o
  output logic                           drain_busy_o,
  output logic                           flush_busy_o,    // soft-reset flush running
  output logic [DamqCntW-1:0]            damq_free_o
);

  `SF_STATIC_ASSERT(gen_num_ctx_check, NumCtx >= 1 && NumCtx <= 256)
  `SF_STATIC_ASSERT(gen_damq_check, ReqDamqSlots >= 1)

  localparam int unsigned SlotW = (K_MAX > 1) ? $clog2(K_MAX) : 1;
  localparam int unsigned RIdxW = $clog2(MAX_ROUNDS);

  // ------------------------------------------------------------ state
  // The tables are written in place, one slot or one context per event: a
  // next-state copy of them would be made in every cycle (in every model
  // evaluation, since a mark depends on the rx header input).
  ctx_state_t              ctx_q[NumCtx];
  src_table_t [NumCtx-1:0] exp_lid_q;
  slot_mask_t [NumCtx-1:0] exp_q;    // slot holds an expected peer
  slot_mask_t [NumCtx-1:0] recv_q;   // that peer's notification is held
  // Leading rounds of each context whose every expected notification is held
  // (capped at num_rounds): kept up to date on the events that change it
  // (activation, mark, soft reset) instead of rescanning every round of
  // every context in every cycle. a_heard_count checks it against the scan.
  nround_t    [NumCtx-1:0] heard_q;

  // Drain of the context just activated (§5).
  logic drain_q, drain_d;
  logic [CtxIdxW-1:0] drain_ctx_q, drain_ctx_d;
  logic [DamqCntW-1:0] drain_left_q, drain_left_d;  // original entries not yet popped

  // Soft-reset flush: set by the pulse, cleared once the DAMQ (hold register
  // included) is empty.
  logic flush_q, flush_d;
  logic               flush_any;   // some queue still holds an entry
  logic [CtxIdxW-1:0] flush_ctx;   // lowest non-empty queue

  // ------------------------------------------------------- request DAMQ
  logic park_valid, park_ready, park_dup;
  logic dq_valid, dq_keep, dq_ready, hold_valid;
  parked_t dq_entry, rx_entry;
  logic [NumCtx-1:0][DamqCntW-1:0] q_count;
  logic [CtxIdxW-1:0] rx_ctx;
  logic [CtxIdxW-1:0] dq_ctx;  // queue the drain (or the flush) pops

  nic_req_damq #(
    .NumCtx  (NumCtx),
    .NumSlots(ReqDamqSlots)
  ) u_req_damq (
    .clk_i,
    .rst_ni,
    .park_valid_i (park_valid),
    .park_ctx_i   (rx_ctx),
    .park_entry_i (rx_entry),
    .park_ready_o (park_ready),
    .park_dup_o   (park_dup),
    .drain_valid_i(dq_valid),
    .drain_ctx_i  (dq_ctx),
    .drain_keep_i (dq_keep),
    .drain_ready_o(dq_ready),
    .drain_entry_o(dq_entry),
    .hold_valid_o (hold_valid),
    .queue_count_o(q_count),
    .free_count_o (damq_free_o)
  );

  // ------------------------------------------------------ response FIFO
  logic resp_push, resp_space;
  logic resp_fifo_valid, resp_pop, resp_hide;
  resp_t resp_in, resp_out;
  logic [$clog2(RespDepth+1)-1:0] resp_count_unused;

  sync_fifo #(
    .T    (resp_t),
    .Depth(RespDepth)
  ) u_resp_fifo (
    .clk_i,
    .rst_ni,
    .clr_i   (1'b0),
    .wvalid_i(resp_push),
    .wready_o(resp_space),
    .wdata_i (resp_in),
    .rvalid_o(resp_fifo_valid),
    .rready_i(resp_pop),
    .rdata_o (resp_out),
    .count_o (resp_count_unused)
  );

  assign resp_hdr_o = resp_hdr(resp_out, own_lid_i);
  // A soft reset withdraws queued responses (§8 "pending packets"): hidden
  // from the network and popped, one per cycle, like TE's held NOTIFY.
  assign resp_hide    = soft_reset_i || flush_q;
  assign resp_valid_o = resp_fifo_valid && !resp_hide;
  assign resp_pop     = resp_fifo_valid && (resp_hide || resp_ready_i);

  // ------------------------------------------------ expected-slot lookup
  // Slots of round `round` of context `ctx` (num_rounds rounds) that expect
  // `src`. At most one: OF rejects a descriptor that repeats a LID in a round
  // (§3 rule 7). The round's rows of the tables are read here, after the
  // range check: a variable-offset select out of every context's LID table
  // is the costly part, and most lookups (no header, no drain) stop at the
  // check.
  function automatic logic [K_MAX-1:0] slot_hits(logic [CtxIdxW-1:0] ctx, nround_t num_rounds,
                                                 lid_t src, logic [7:0] round);
    logic [K_MAX-1:0] hits;
    hits = '0;
    if (32'(round) < 32'(num_rounds) && 32'(round) < MAX_ROUNDS) begin
      for (int unsigned k = 0; k < K_MAX; k++) begin
        hits[k] = exp_q[ctx][RIdxW'(round)][k] && (exp_lid_q[ctx][RIdxW'(round)][k] == src);
      end
    end
    return hits;
  endfunction

  // Leading rounds whose every expected slot is received, capped at
  // num_rounds: rounds at or above num_rounds expect nothing, so they count
  // as heard.
  function automatic nround_t heard_scan(slot_mask_t exp, slot_mask_t recv, nround_t num_rounds);
    logic    gap;
    nround_t heard;
    gap   = 1'b0;
    heard = '0;
    for (int unsigned r = 0; r < MAX_ROUNDS; r++) begin
      if ((exp[r] & ~recv[r]) != '0) gap = 1'b1;
      if (!gap && r < 32'(num_rounds)) heard = heard + nround_t'(1);
    end
    return heard;
  endfunction

  function automatic logic [SlotW-1:0] slot_index(logic [K_MAX-1:0] hits);
    logic [SlotW-1:0] idx;
    idx = '0;
    for (int unsigned k = 0; k < K_MAX; k++) begin
      if (hits[k]) idx = SlotW'(k);
    end
    return idx;
  endfunction

  // ---------------------------------------------------------- rx verdict
  logic rx_fire, drain_busy;
  logic        rx_ctx_ok;
  ctx_state_t  rx_st;
  logic [K_MAX-1:0] rx_hits;
  logic rx_stale, rx_same;
  se_verdict_e verdict;

  assign drain_busy = drain_q || hold_valid;
  assign rx_ready_o = !act_valid_i && !drain_busy && resp_space && !soft_reset_i && !flush_q;
  assign rx_fire    = rx_valid_i && rx_ready_o;

  assign rx_ctx_ok = 32'(rx_hdr_i.ctx) < NumCtx;
  assign rx_ctx    = rx_ctx_ok ? CtxIdxW'(rx_hdr_i.ctx) : '0;
  assign rx_entry  = '{src: rx_hdr_i.src_lid, epoch: rx_hdr_i.epoch, round: rx_hdr_i.round};

  // The slots of the offered header's round (of a context with num_rounds
  // rounds) that expect its src.
  function automatic logic [K_MAX-1:0] rx_lookup(nround_t num_rounds);
    return slot_hits(rx_ctx, num_rounds, rx_hdr_i.src_lid, rx_hdr_i.round);
  endfunction

  // The header is judged only while one is offered: every use of the verdict
  // (response, park, mark, counters) is qualified by rx_fire, and logic that
  // reads the rx inputs is re-evaluated on every model evaluation, header or
  // not. Without a header the lookups read 0 and the verdict SE_STRAY.
  always_comb begin
    rx_st    = '0;
    rx_hits  = '0;
    rx_same  = 1'b0;
    rx_stale = 1'b0;
    verdict  = SE_STRAY;
    if (rx_valid_i) begin
      rx_st    = ctx_q[rx_ctx];
      rx_hits  = rx_lookup(rx_st.num_rounds);
      rx_same  = rx_st.active && (rx_hdr_i.epoch == rx_st.epoch);
      // §4 rule 4.
      rx_stale = rx_st.active ? epoch_newer(rx_st.epoch, rx_hdr_i.epoch)
                              : (rx_st.last_valid &&
                                 !epoch_newer(rx_hdr_i.epoch, rx_st.last_epoch));
      if (rx_hdr_i.pkt_type != PktNotify || rx_hdr_i.len_flits != 8'd1 ||
          rx_hdr_i.dst_lid != own_lid_i) begin
        verdict = SE_STRAY;  // rule 1
      end else if (!enable_i) begin
        verdict = SE_NACK;  // rule 2
      end else if (!rx_ctx_ok || rx_stale) begin
        verdict = SE_DROP;  // rules 3, 4
      end else if (rx_same) begin  // rule 5
        if (rx_hits == '0) begin
          verdict = SE_DROP;
        end else if ((recv_q[rx_ctx][RIdxW'(rx_hdr_i.round)] & rx_hits) != '0) begin
          verdict = SE_DUP;
        end else begin
          verdict = SE_MATCH;
        end
      end else if (park_dup) begin  // rule 6
        verdict = SE_DUP;
      end else if (park_ready) begin
        verdict = SE_PARK;
      end else begin
        verdict = SE_NACK;
      end
    end
  end

  assign park_valid = rx_fire && (verdict == SE_PARK);
  assign resp_push  = rx_fire && (verdict != SE_STRAY);
  assign resp_in    = '{nack: (verdict == SE_NACK), dst: rx_hdr_i.src_lid, ctx: rx_hdr_i.ctx,
                        epoch: rx_hdr_i.epoch, round: rx_hdr_i.round};

  // --------------------------------------------------------------- drain
  // Activation is accepted only between drains; the drain then pops the
  // entries the queue held at activation, one per cycle (§5):
  //   same epoch: consumed; marked if expected, else dropped;
  //   newer:      pushed back at the tail (stays parked, order kept);
  //   otherwise:  dropped (older, or the undefined distance 0x8000).
  logic act_fire;
  logic dq_same, dq_drop;
  epoch_t           dq_epoch;  // the epoch just activated
  logic [K_MAX-1:0] dq_hits;

  assign act_ready_o = !drain_busy && !soft_reset_i && !flush_q;
  assign act_fire    = act_valid_i && act_ready_o;

  always_comb begin
    flush_any = 1'b0;
    flush_ctx = '0;
    for (int c = NumCtx - 1; c >= 0; c--) begin
      if (q_count[c] != '0) begin
        flush_any = 1'b1;
        flush_ctx = CtxIdxW'(c);
      end
    end
  end

  assign dq_ctx   = flush_q ? flush_ctx : drain_ctx_q;
  assign dq_valid = flush_q ? flush_any : (drain_q && (drain_left_q != '0));
  assign dq_epoch = ctx_q[drain_ctx_q].epoch;
  assign dq_hits  = slot_hits(drain_ctx_q, ctx_q[drain_ctx_q].num_rounds, dq_entry.src,
                              dq_entry.round);
  assign dq_same  = dq_entry.epoch == dq_epoch;
  assign dq_keep  = !flush_q && !dq_same && epoch_newer(dq_entry.epoch, dq_epoch);
  assign dq_drop  = !flush_q && dq_valid && dq_ready && !dq_keep && !(dq_same && dq_hits != '0);

  always_comb begin
    drain_d      = drain_q;
    drain_ctx_d  = drain_ctx_q;
    drain_left_d = drain_left_q;
    if (act_fire) begin
      drain_d      = 1'b1;
      drain_ctx_d  = act_ctx_i;
      drain_left_d = q_count[act_ctx_i];
    end else if (dq_valid && dq_ready) begin
      drain_left_d = drain_left_q - DamqCntW'(1);
    end else if (drain_q && drain_left_q == '0) begin
      drain_d = 1'b0;
    end
    if (soft_reset_i) begin
      drain_d      = 1'b0;
      drain_left_d = '0;
    end
  end

  always_comb begin
    flush_d = flush_q;
    if (soft_reset_i) begin
      flush_d = 1'b1;
    end else if (flush_q && !flush_any && !hold_valid) begin
      flush_d = 1'b0;
    end
  end

  // ------------------------------------------------------ state update
  logic               mark;
  logic [CtxIdxW-1:0] mark_ctx;
  logic [RIdxW-1:0]   mark_round;
  logic [SlotW-1:0]   mark_slot;

  // (The slot is worked out only for a mark: the rx header is an input.)
  always_comb begin
    mark       = 1'b0;
    mark_ctx   = '0;
    mark_round = '0;
    mark_slot  = '0;
    if (rx_fire && verdict == SE_MATCH) begin
      mark       = 1'b1;
      mark_ctx   = rx_ctx;
      mark_round = RIdxW'(rx_hdr_i.round);
      mark_slot  = slot_index(rx_hits);
    end else if (!flush_q && dq_valid && dq_ready && !dq_keep && dq_same && dq_hits != '0) begin
      mark       = 1'b1;
      mark_ctx   = drain_ctx_q;
      mark_round = RIdxW'(dq_entry.round);
      mark_slot  = slot_index(dq_hits);
    end
  end

  // Used slots of the descriptor being activated: round < num_rounds,
  // slot < fanout_k, LID not LID_NONE. It reads the act_* inputs itself,
  // because a wide argument is staged in a temporary that the model clears
  // every time the calling process runs, whether or not the call is reached.
  function automatic slot_mask_t act_expected();
    slot_mask_t m;
    for (int unsigned r = 0; r < MAX_ROUNDS; r++) begin
      for (int unsigned k = 0; k < K_MAX; k++) begin
        m[r][k] = (r < 32'(act_num_rounds_i)) && (k < 32'(act_fanout_i)) &&
                  (act_src_i[r][k] != LID_NONE);
      end
    end
    return m;
  endfunction

  // Later assignments win, in the order of the rules: a mark, then fin, then
  // the activation, and a soft reset over all of them.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctx_q   <= '{default: '0};
      exp_q   <= '0;
      recv_q  <= '0;
      heard_q <= '0;
    end else if (soft_reset_i) begin
      // §8: every context goes, last epochs included (the engine starts over).
      ctx_q   <= '{default: '0};
      exp_q   <= '0;
      recv_q  <= '0;
      heard_q <= '0;
    end else begin
      if (mark) begin
        slot_mask_t recv_new;
        recv_new = recv_q[mark_ctx];
        recv_new[mark_round][mark_slot] = 1'b1;
        recv_q[mark_ctx][mark_round][mark_slot] <= 1'b1;
        heard_q[mark_ctx] <= heard_scan(exp_q[mark_ctx], recv_new, ctx_q[mark_ctx].num_rounds);
      end
      if (fin_valid_i) begin
        ctx_q[fin_ctx_i].active     <= 1'b0;
        ctx_q[fin_ctx_i].last_valid <= 1'b1;
        ctx_q[fin_ctx_i].last_epoch <= ctx_q[fin_ctx_i].epoch;
      end
      if (act_fire) begin
        slot_mask_t exp_new;
        exp_new = act_expected();
        ctx_q[act_ctx_i].active     <= 1'b1;
        ctx_q[act_ctx_i].epoch      <= act_epoch_i;
        ctx_q[act_ctx_i].num_rounds <= act_num_rounds_i;
        exp_q[act_ctx_i]            <= exp_new;
        recv_q[act_ctx_i]           <= '0;
        heard_q[act_ctx_i]          <= heard_scan(exp_new, '0, act_num_rounds_i);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      drain_q      <= 1'b0;
      drain_ctx_q  <= '0;
      drain_left_q <= '0;
      flush_q      <= 1'b0;
    end else begin
      drain_q      <= drain_d;
      drain_ctx_q  <= drain_ctx_d;
      drain_left_q <= drain_left_d;
      flush_q      <= flush_d;
    end
  end

  // The LID table needs no reset: a LID is only compared where its exp_q bit
  // is set, and activation writes both.
  always_ff @(posedge clk_i) begin
    if (act_fire) exp_lid_q[act_ctx_i] <= act_src_i;
  end

  // ------------------------------------------------- per-context outputs
  always_comb begin
    for (int unsigned c = 0; c < NumCtx; c++) begin
      ctx_active_o[c]   = ctx_q[c].active;
      rounds_heard_o[c] = ctx_q[c].active ? heard_q[c] : '0;
      all_recv_o[c]     = ctx_q[c].active && (heard_q[c] == ctx_q[c].num_rounds);
    end
  end

  // --------------------------------------------------------------- events
  assign evt_rx_o     = rx_fire;
  assign rx_verdict_o = verdict;
  assign evt_recv_o   = rx_fire && (verdict == SE_MATCH || verdict == SE_PARK);
  assign evt_dup_o    = rx_fire && (verdict == SE_DUP);
  // §5: a parked entry counted RECV when parked counts DROP if the drain
  // throws it away (docs/nic/se.md, "Drain drops are counted twice").
  assign evt_drop_o   = (rx_fire && (verdict == SE_DROP || verdict == SE_STRAY)) || dq_drop;
  assign evt_nack_o   = rx_fire && (verdict == SE_NACK);
  assign drain_busy_o = drain_busy;
  assign flush_busy_o = flush_q;

  // ---------------------------------------------------------------- rules
`ifndef SYNTHESIS
  // Conservation over the rx path: every header taken lands in exactly one
  // of RECV, DUP, DROP, NACK_SENT (§4). Drain drops are counted apart.
  logic [63:0] n_rx_q, n_recv_q, n_dup_q, n_drop_q, n_nack_q;
  logic rx_drop;
  assign rx_drop = evt_drop_o && !dq_drop;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      n_rx_q   <= '0;
      n_recv_q <= '0;
      n_dup_q  <= '0;
      n_drop_q <= '0;
      n_nack_q <= '0;
    end else begin
      n_rx_q   <= n_rx_q + 64'(evt_rx_o);
      n_recv_q <= n_recv_q + 64'(evt_recv_o);
      n_dup_q  <= n_dup_q + 64'(evt_dup_o);
      n_drop_q <= n_drop_q + 64'(rx_drop);
      n_nack_q <= n_nack_q + 64'(evt_nack_o);
    end
  end

  // verilog_format: off
  `NIC_ASSERT(a_count_conservation, n_recv_q + n_dup_q + n_drop_q + n_nack_q == n_rx_q)
  // One verdict per header: exactly one counter moves.
  `NIC_ASSERT_IMP(a_one_count_per_notify, rx_fire,
                  $onehot({evt_recv_o, evt_dup_o, rx_drop, evt_nack_o}))
  `NIC_ASSERT_ONEHOT0(a_one_event_per_cycle, {evt_recv_o, evt_dup_o, evt_drop_o, evt_nack_o})
  `NIC_ASSERT_IMP(a_no_count_without_notify, !rx_fire,
                  !(evt_recv_o || evt_dup_o || rx_drop || evt_nack_o))
  // One response per NOTIFY for this node, none for a stray header; a
  // response is an ACK or a NACK, never both (one FIFO entry, one type bit).
  `NIC_ASSERT_IMP(a_one_response_per_notify, rx_fire, resp_push == (verdict != SE_STRAY))
  `NIC_ASSERT_IMP(a_response_only_for_rx, resp_push, rx_fire)
  `NIC_ASSERT_IMP(a_response_fits, resp_push, resp_space)
  // NACK only when the engine is disabled, or nothing active matches the
  // epoch and the buffer is full (§4 rule 6: the only NACK).
  `NIC_ASSERT_IMP(a_nack_only_when_disabled_or_full, rx_fire && resp_in.nack,
                  !enable_i || (!rx_same && !park_ready && !park_dup))
  // ACKs copy ctx/epoch/round and reply to the sender.
  `NIC_ASSERT_IMP(a_resp_copies_fields, resp_push,
                  resp_in.dst == rx_hdr_i.src_lid && resp_in.ctx == rx_hdr_i.ctx &&
                  resp_in.epoch == rx_hdr_i.epoch && resp_in.round == rx_hdr_i.round)
  // Marks: only expected slots, never twice, only on an active context.
  `NIC_ASSERT_IMP(a_mark_expected, mark, exp_q[mark_ctx][mark_round][mark_slot])
  `NIC_ASSERT_IMP(a_no_double_mark, mark, !recv_q[mark_ctx][mark_round][mark_slot])
  `NIC_ASSERT_IMP(a_mark_active, mark, ctx_q[mark_ctx].active)
  `NIC_ASSERT_ONEHOT0(a_rx_slot_unique, rx_lookup(ctx_q[rx_ctx].num_rounds))
  `NIC_ASSERT_ONEHOT0(a_drain_slot_unique, dq_hits)
  // Parking never happens when the active descriptor takes the packet.
  `NIC_ASSERT_IMP(a_park_only_without_active_match, park_valid, !rx_same)
  // No rx decisions while a drain rewrites the context (state would race).
  `NIC_ASSERT_IMP(a_no_rx_during_drain, drain_busy, !rx_fire)
  `NIC_ASSERT_IMP(a_no_rx_with_activation, act_fire, !rx_fire)
  `NIC_ASSERT_IMP(a_drain_pop_ready, dq_valid, dq_ready)
  // Soft reset: nothing is taken while the flush runs, and the flush counts
  // nothing and marks nothing.
  `NIC_ASSERT_IMP(a_no_rx_during_flush, flush_q || soft_reset_i, !rx_fire && !act_fire)
  `NIC_ASSERT_IMP(a_flush_uncounted, flush_q, !evt_drop_o && !mark)
  `NIC_ASSERT_IMP(a_flush_no_response_out, flush_q, !resp_valid_o)
  `NIC_ASSERT_IMP(a_soft_reset_clears_contexts, soft_reset_prev_q, ctx_active_o == '0)
  // OF activates only idle, existing contexts; fin names an active one.
  `NIC_ASSERT_IMP(a_act_ctx_in_range, act_valid_i, 32'(act_ctx_i) < NumCtx)
  `NIC_ASSERT_IMP(a_act_ctx_idle, act_fire, !ctx_q[act_ctx_i].active)
  `NIC_ASSERT_IMP(a_act_rounds_in_range, act_valid_i, 32'(act_num_rounds_i) <= MAX_ROUNDS)
  `NIC_ASSERT_IMP(a_act_fanout_in_range, act_valid_i,
                  act_fanout_i != '0 && 32'(act_fanout_i) <= K_MAX)
  `NIC_ASSERT_IMP(a_fin_ctx_active, fin_valid_i, ctx_q[fin_ctx_i].active)
  `NIC_ASSERT_IMP(a_no_fin_with_act_same_ctx, fin_valid_i && act_fire, fin_ctx_i != act_ctx_i)
  `NIC_ASSERT_KNOWN(a_rx_hdr_known, rx_valid_i ? rx_hdr_i : '0)
  // verilog_format: on

  // Values of the previous cycle for the rules that compare two cycles:
  // registers written at every edge, like $past, but without the sampled
  // copy of the argument that Verilator refreshes on every evaluation.
  logic soft_reset_prev_q;
  logic [NumCtx-1:0] active_prev_q, act_here_prev_q;
  nround_t [NumCtx-1:0] heard_prev_q;
  always_ff @(posedge clk_i) begin
    soft_reset_prev_q <= soft_reset_i;
    active_prev_q     <= ctx_active_o;
    act_here_prev_q   <= NumCtx'(act_fire) << act_ctx_i;
    heard_prev_q      <= rounds_heard_o;
  end

  // heard_q against the scan it replaces. It changes only with the tables of
  // its own context (activation, mark, soft reset, reset), so each context is
  // checked in the cycle after such an event: one scan per event, not one
  // per context per cycle.
  logic [NumCtx-1:0] heard_chk_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      heard_chk_q <= '1;
    end else if (soft_reset_i) begin
      heard_chk_q <= '1;
    end else begin
      heard_chk_q <= (NumCtx'(mark) << mark_ctx) | (NumCtx'(act_fire) << act_ctx_i);
    end
  end

  // Per-context rules: each one rule over the contexts (c), in one process.
  // Within one activation the heard count only grows (TE relies on it). A
  // context whose count did not change holds it trivially, hence the gate.
  // verilog_format: off
  `NIC_ASSERT_FORALL(a_heard_monotonic, rounds_heard_o != heard_prev_q, c, NumCtx,
                     ctx_q[c].active && active_prev_q[c] && !act_here_prev_q[c],
                     rounds_heard_o[c] >= heard_prev_q[c])
  // Every context's table at once (the tables are packed arrays). recv_q
  // and exp_q are written only at the edges that set heard_chk_q (reset, soft
  // reset, a mark, an activation), so they are checked after those.
  `NIC_ASSERT_IMP(a_recv_subset_of_expected, heard_chk_q != '0, (recv_q & ~exp_q) == '0)
  // The count of an idle context reads 0, which holds trivially.
  `NIC_ASSERT_FORALL(a_heard_in_range, ctx_active_o != '0, c, NumCtx, ctx_q[c].active,
                     rounds_heard_o[c] <= ctx_q[c].num_rounds)
  `NIC_ASSERT_FORALL(a_heard_count, heard_chk_q != '0, c, NumCtx, heard_chk_q[c],
                     heard_q[c] == heard_scan(exp_q[c], recv_q[c], ctx_q[c].num_rounds))
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
