// TE: the transmit side of the barrier engine.
//
// Implements docs/barrier-protocol.md §6 (sending, ACK, NACK, retry) and the
// TE half of §7 (the completion condition, the done record, `fin` to SE).
// Structure, timing and the decisions the protocol doc leaves open:
// docs/nic/te.md.
//
// Per context c it keeps the destination table of the active descriptor and,
// per send (round r, slot k; LID_NONE slots are not sends), one of four states
// as bit planes (one bit per send in each, the bits of a send exclusive):
//   new     not sent yet; goes out once SE's rounds_heard_i[c] >= r (§6);
//   flight  sent (or in the tx output register), waiting for its ACK/NACK;
//   wait    NACKed, in c's retry queue until RETRY_DELAY has elapsed;
//   acked   ACKed (done).
// A retry-limit abort forgets every send of the context (all planes clear).
// The planes and tables are written in place, one send or one context per
// event, and the lowest new send of each context is kept in a register
// (new_first_q) rather than searched for in every cycle.
//
// Paths:
//   tx    per context a candidate (the due head of the retry queue first,
//         else the lowest released new send); rr_arbiter across contexts;
//         the winner is loaded into a one-entry output register, so
//         tx_valid_o/tx_hdr_o hold until taken.
//   resp  ACK/NACK headers from the rx demux: malformed ones (type, length,
//         dst, ctx) are dropped at once; the rest go through the response
//         DAMQ (rtl/common/damq.sv, one queue per context) to the matcher,
//         which takes one entry per cycle (rr_arbiter across queues) and
//         judges it against the registered state: (ctx, epoch, round,
//         peer = src_lid) against a send in flight.
//   done  per context: OK when SE's all_recv_i and every send ACKed (§7), or
//         NET_ERROR / RETRY_LIMIT on an abort; one record at a time
//         (stream_arbiter: held until taken) to the completion unit. The context
//         is freed, and `fin` goes to SE, in the cycle the record is taken.
//
// Debug names follow the trace vocabulary of §9 (`te.send`, `te.ack`,
// `te.nack`, `te.done`, and `te.drop` for a response matching nothing): the
// signals `send`, `ack`, `nack`, `done`, `drop` of this module.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_te
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  parameter int unsigned NumCtx        = NumCtxDefault,
  // §6: sized for every send that can be outstanding. The matcher never
  // stalls, so in this design the DAMQ holds at most one entry (asserted);
  // any value >= 2 keeps resp_rx_ready_o high.
  parameter int unsigned RespDamqSlots = NumCtx * MAX_ROUNDS * K_MAX,
  localparam int unsigned CtxIdxW = (NumCtx > 1) ? $clog2(NumCtx) : 1,
  localparam int unsigned RespCntW = $clog2(RespDamqSlots + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  // Configuration (CSRs).
  input  lid_t                   own_lid_i,
  input  logic [31:0]            retry_delay_i,   // RETRY_DELAY.CYCLES
  input  logic [15:0]            retry_limit_i,   // RETRY_LIMIT.LIMIT, 0 = forever
  input  logic                   soft_reset_i,    // CTRL.SOFT_RESET pulse
  // Activation of a validated descriptor (OF), same cycle as SE's. Always
  // ready except in a soft-reset cycle; the context must be idle.
  input  logic                   act_valid_i,
  output logic                   act_ready_o,
  input  logic [CtxIdxW-1:0]     act_ctx_i,
  input  epoch_t                 act_epoch_i,
  input  nround_t                act_num_rounds_i,  // <= MAX_ROUNDS
  input  logic [7:0]             act_fanout_i,      // 1 .. K_MAX
  input  dst_table_t             act_dst_i,         // round r slot k destination LID
  // SE's per-context status.
  input  logic    [NumCtx-1:0]   ctx_active_i,
  input  nround_t [NumCtx-1:0]   rounds_heard_i,
  input  logic    [NumCtx-1:0]   all_recv_i,
  // The descriptor on fin_ctx_o is finished (to SE; = done record taken).
  output logic                   fin_valid_o,
  output logic [CtxIdxW-1:0]     fin_ctx_o,
  // NOTIFYs to the network arbiter.
  output logic                   tx_valid_o,
  input  logic                   tx_ready_i,
  output pkt_hdr_t               tx_hdr_o,
  // ACK/NACK headers from the rx demux.
  input  logic                   resp_rx_valid_i,
  output logic                   resp_rx_ready_o,
  input  pkt_hdr_t               resp_rx_hdr_i,
  // Done records to the completion unit.
  output logic                   done_valid_o,
  input  logic                   done_ready_i,
  output cq_rec_t                done_rec_o,
  // Event pulses (one cycle each).
  output logic                   evt_notif_sent_o,  // CNT_NOTIF_SENT (first sends and re-sends)
  output logic                   evt_retry_o,       // CNT_RETRY (a re-send left)
  output logic                   evt_ack_recv_o,    // an ACK matched a send (no CSR counter)
  output logic                   evt_nack_recv_o,   // CNT_NACK_RECV
  output logic                   evt_drop_o,        // CNT_DROP: a response matched nothing
  output logic                   evt_stray_o,       // CNT_DROP: a malformed response at the input
  output logic                   evt_error_o,       // an error record was taken (CNT_ERROR source)
  // Status / debug.
  output logic                   busy_o,
  output logic [RespCntW-1:0]    resp_damq_free_o
);

  `SF_STATIC_ASSERT(gen_num_ctx_check, NumCtx >= 1 && NumCtx <= 256)
  `SF_STATIC_ASSERT(gen_resp_damq_check, RespDamqSlots >= 2)

  localparam int unsigned Flat = MAX_ROUNDS * K_MAX;  // sends per context
  localparam int unsigned FlatW = $clog2(Flat);
  localparam int unsigned RqCntW = $clog2(Flat + 1);
  localparam int unsigned SlotW = (K_MAX > 1) ? $clog2(K_MAX) : 1;
  localparam int unsigned RIdxW = $clog2(MAX_ROUNDS);

  typedef logic [Flat-1:0] flat_t;  // bit r*K_MAX + k: round r slot k
  typedef logic [FlatW-1:0] fidx_t;
  typedef logic [RqCntW-1:0] rqcnt_t;

  // Per-context state. `ending`: the descriptor is over (completed or
  // aborted) and its record waits for the completion unit; `err` says which.
  typedef struct packed {
    logic    active;
    logic    ending;
    logic    err;
    epoch_t  epoch;
    nround_t num_rounds;
  } te_ctx_t;

  // A response waiting in the DAMQ (the context is the queue number).
  typedef struct packed {
    logic       nack;
    lid_t       src;
    epoch_t     epoch;
    logic [7:0] round;
  } te_resp_t;
  localparam int unsigned TeRespW = $bits(te_resp_t);

  // Index of the lowest set bit of v (0 when v is 0), by halving: FlatW
  // steps of a few word operations instead of a loop over every bit.
  localparam int unsigned SearchW = 1 << FlatW;
  function automatic fidx_t lowest_set(flat_t v);
    logic [SearchW-1:0] w;
    fidx_t              idx;
    w   = SearchW'(v);
    idx = '0;
    for (int unsigned b = FlatW; b > 0; b--) begin
      if ((w & ((SearchW'(1) << (1 << (b - 1))) - SearchW'(1))) == '0) begin
        idx = idx + fidx_t'(1 << (b - 1));
        w   = w >> (1 << (b - 1));
      end
    end
    return idx;
  endfunction

  function automatic logic [RIdxW-1:0] round_of(fidx_t i);
    return RIdxW'(32'(i) / K_MAX);
  endfunction

  function automatic logic [SlotW-1:0] slot_of(fidx_t i);
    return SlotW'(32'(i) % K_MAX);
  endfunction

  // ------------------------------------------------------------ state
  te_ctx_t [NumCtx-1:0] ctx_q, ctx_d;
  flat_t   [NumCtx-1:0] used_q;              // the sends of the descriptor
  flat_t   [NumCtx-1:0] new_q;
  flat_t   [NumCtx-1:0] flight_q;
  flat_t   [NumCtx-1:0] wait_q;
  flat_t   [NumCtx-1:0] acked_q;
  fidx_t   [NumCtx-1:0] new_first_q;         // lowest set bit of new_q (when not 0)
  dst_table_t [NumCtx-1:0] dst_q;            // no reset: read only where used_q is set
  logic [NumCtx-1:0][Flat-1:0][15:0] retries_q;  // re-sends so far; written at every load

  // Cycle count for the retry timestamps. Only differences from a queued
  // entry's stamp are read, so it needs to count only from a push until the
  // queues drain: an idle NIC then holds all of its state still (nothing
  // toggles, and a simulator can skip it until an input changes).
  logic [31:0] now_q;

  // Retry queue per context: the NACKed sends in NACK order with the cycle
  // the NACK was taken. One delay for all, so the head is due first.
  fidx_t       rq_slot_q[NumCtx][Flat];
  logic [31:0] rq_time_q[NumCtx][Flat];
  fidx_t [NumCtx-1:0] rq_head_q, rq_head_d, rq_tail_q, rq_tail_d;
  rqcnt_t [NumCtx-1:0] rq_cnt_q, rq_cnt_d;

  // ------------------------------------------------------ activation
  logic act_fire;

  assign act_ready_o = !soft_reset_i;
  assign act_fire    = act_valid_i && act_ready_o;

  // The sends of the descriptor being activated: round < num_rounds,
  // slot < fanout_k, LID not LID_NONE. Called in the activation branch of the
  // state update only, and it reads the act_* inputs itself (a wide argument
  // is staged in a temporary that is cleared whenever the caller runs).
  function automatic flat_t act_sends();
    flat_t m;
    for (int unsigned r = 0; r < MAX_ROUNDS; r++) begin
      for (int unsigned k = 0; k < K_MAX; k++) begin
        m[r*K_MAX + k] = (r < 32'(act_num_rounds_i)) && (k < 32'(act_fanout_i)) &&
                         (act_dst_i[r][k] != LID_NONE);
      end
    end
    return m;
  endfunction

  // ------------------------------------------------------- response intake
  logic rx_fire, rx_ok, stray;
  logic enq_ready, deq_ready;
  te_resp_t rx_entry, deq_entry;
  logic [NumCtx-1:0] resp_q_empty;
  logic [NumCtx-1:0][RespCntW-1:0] resp_count_unused;
  logic resp_full_unused, resp_afull_unused;

  // docs/nic/te.md, "Malformed responses": the len/dst check of §4 rule 1
  // applies to responses too; a context TE does not have is dropped here as
  // well.
  assign rx_ok = (resp_rx_hdr_i.pkt_type == PktAck || resp_rx_hdr_i.pkt_type == PktNack) &&
                 resp_rx_hdr_i.len_flits == 8'd1 && resp_rx_hdr_i.dst_lid == own_lid_i &&
                 32'(resp_rx_hdr_i.ctx) < NumCtx;
  assign resp_rx_ready_o = enq_ready;
  assign rx_fire  = resp_rx_valid_i && resp_rx_ready_o;
  assign stray    = rx_fire && !rx_ok;
  assign rx_entry = '{nack: (resp_rx_hdr_i.pkt_type == PktNack), src: resp_rx_hdr_i.src_lid,
                      epoch: resp_rx_hdr_i.epoch, round: resp_rx_hdr_i.round};

  logic m_valid, deq_fire;
  logic [CtxIdxW-1:0] m_ctx;
  logic [NumCtx-1:0]  m_gnt_unused;

  damq #(
    .NumQueues      (NumCtx),
    .NumSlots       (RespDamqSlots),
    .Width          (TeRespW),
    .AlmostFullSlots(1)
  ) u_resp_damq (
    .clk_i,
    .rst_ni,
    .enq_valid_i  (rx_fire && rx_ok),
    .enq_queue_i  (CtxIdxW'(resp_rx_hdr_i.ctx)),
    .enq_data_i   (rx_entry),
    .enq_ready_o  (enq_ready),
    .deq_valid_i  (m_valid),
    .deq_queue_i  (m_ctx),
    .deq_ready_o  (deq_ready),
    .deq_data_o   (deq_entry),
    .queue_empty_o(resp_q_empty),
    .queue_count_o(resp_count_unused),
    .free_count_o (resp_damq_free_o),
    .full_o       (resp_full_unused),
    .almost_full_o(resp_afull_unused)
  );

  rr_arbiter #(
    .NumReq(NumCtx)
  ) u_resp_arb (
    .clk_i,
    .rst_ni,
    .req_i      (~resp_q_empty),
    .ack_i      (deq_fire),
    .gnt_o      (m_gnt_unused),
    .gnt_idx_o  (m_ctx),
    .gnt_valid_o(m_valid)
  );

  assign deq_fire = m_valid && deq_ready;

  // ------------------------------------------------------------- matcher
  logic             m_running;
  epoch_t           m_epoch;
  nround_t          m_num_rounds;
  logic m_round_ok, m_match, m_abort, m_retry_push;
  logic [RIdxW-1:0] m_round;
  logic [K_MAX-1:0] m_hits;
  fidx_t            m_slot;
  logic ack, nack, drop;

  // The sends in flight of the entry's round that wait for its src.
  function automatic logic [K_MAX-1:0] match_hits();
    logic [K_MAX-1:0] hits;
    hits = '0;
    if (32'(deq_entry.round) < 32'(ctx_q[m_ctx].num_rounds)) begin
      for (int unsigned k = 0; k < K_MAX; k++) begin
        hits[k] = flight_q[m_ctx][32'(deq_entry.round)*K_MAX + k] &&
                  (dst_q[m_ctx][RIdxW'(deq_entry.round)][k] == deq_entry.src);
      end
    end
    return hits;
  endfunction

  // The matcher works only when a response waits (m_valid): the match, the
  // slot and everything they drive are qualified by deq_fire.
  always_comb begin
    m_running    = 1'b0;
    m_epoch      = '0;
    m_num_rounds = '0;
    m_round_ok   = 1'b0;
    m_round      = '0;
    m_hits       = '0;
    m_slot       = '0;
    m_match      = 1'b0;
    m_abort      = 1'b0;
    if (m_valid) begin
      m_running    = ctx_q[m_ctx].active && !ctx_q[m_ctx].ending;
      m_epoch      = ctx_q[m_ctx].epoch;
      m_num_rounds = ctx_q[m_ctx].num_rounds;
      m_round_ok   = 32'(deq_entry.round) < 32'(m_num_rounds);
      m_round      = m_round_ok ? RIdxW'(deq_entry.round) : '0;
      m_hits       = match_hits();
      for (int unsigned k = 0; k < K_MAX; k++) begin
        if (m_hits[k]) m_slot = fidx_t'(32'(m_round) * K_MAX + k);
      end
      m_match = deq_fire && !soft_reset_i && m_running &&
                (deq_entry.epoch == m_epoch) && (m_hits != '0);
      // §6: LIMIT = n allows n re-sends; the (n+1)-th NACK fails the descriptor.
      m_abort = m_match && deq_entry.nack && (retry_limit_i != '0) &&
                (retries_q[m_ctx][m_slot] >= retry_limit_i);
    end
  end

  assign ack          = m_match && !deq_entry.nack;
  assign nack         = m_match && deq_entry.nack;
  assign m_retry_push = nack && !m_abort;
  // A soft reset discards the entry popped in its cycle without counting it.
  assign drop         = deq_fire && !soft_reset_i && !m_match;

  // ------------------------------------------------------------ tx side
  // A context's candidate new send is its lowest new send, released when its
  // round is at most rounds_heard (§6): new sends leave in index order, so
  // the lowest one is also the lowest released one.
  logic [NumCtx-1:0] cand_new, rq_due, tx_req;
  fidx_t [NumCtx-1:0]       head_slot;
  logic  [NumCtx-1:0][31:0] head_time;

  // Only a running context asks (tx_req), and only the asking context that
  // wins (g) is read further: the candidates of the others are not worked out.
  always_comb begin
    for (int unsigned c = 0; c < NumCtx; c++) begin
      head_slot[c] = rq_slot_q[c][rq_head_q[c]];
      head_time[c] = '0;
      cand_new[c]  = 1'b0;
      rq_due[c]    = 1'b0;
      if (ctx_q[c].active && !ctx_q[c].ending) begin
        head_time[c] = rq_time_q[c][rq_head_q[c]];
        cand_new[c]  = (new_q[c] != '0) &&
                       (32'(round_of(new_first_q[c])) <= 32'(rounds_heard_i[c]));
        // The head waits RETRY_DELAY cycles from the cycle its NACK was taken.
        rq_due[c]    = (rq_cnt_q[c] != '0) && ((now_q - head_time[c]) >= retry_delay_i);
      end
      tx_req[c] = rq_due[c] || cand_new[c];
    end
  end

  logic tx_gnt_valid, tx_load;
  logic [CtxIdxW-1:0] g;
  logic [NumCtx-1:0]  tx_gnt_unused;
  logic               sel_retry;
  fidx_t              sel_slot;

  rr_arbiter #(
    .NumReq(NumCtx)
  ) u_tx_arb (
    .clk_i,
    .rst_ni,
    .req_i      (tx_req),
    .ack_i      (tx_load),
    .gnt_o      (tx_gnt_unused),
    .gnt_idx_o  (g),
    .gnt_valid_o(tx_gnt_valid)
  );

  // Output register: valid and header hold until the network takes them.
  typedef struct packed {
    logic               valid;
    logic               retry;
    logic [CtxIdxW-1:0] ctx;
    epoch_t             epoch;
    logic [RIdxW-1:0]   round;
    lid_t               src;  // NODE_LID when chosen: the header holds even if it changes
    lid_t               dst;
  } tx_reg_t;
  tx_reg_t tx_q;
  logic    send;
  lid_t    sel_dst;

  assign tx_load   = tx_gnt_valid && !soft_reset_i && (!tx_q.valid || tx_ready_i);
  // Within a context a due retry goes first: it was released before any
  // send still new.
  assign sel_retry = rq_due[g];
  assign sel_slot  = sel_retry ? head_slot[g] : new_first_q[g];
  // Read only with a grant (a load, or a_send_has_peer in its cycle).
  always_comb begin
    sel_dst = LID_NONE;
    if (tx_gnt_valid) sel_dst = dst_q[g][round_of(sel_slot)][slot_of(sel_slot)];
  end
  assign send = tx_q.valid && tx_ready_i;

  // Updated in the clocked process (not through a tx_d): the load depends on
  // tx_ready_i, and next-state logic of an input is re-evaluated on every
  // model evaluation.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tx_q <= '0;
    end else begin
      if (send) tx_q.valid <= 1'b0;
      if (tx_load) begin
        tx_q <= '{
            valid: 1'b1,
            retry: sel_retry,
            ctx: g,
            epoch: ctx_q[g].epoch,
            round: round_of(sel_slot),
            src: own_lid_i,
            dst: sel_dst
        };
      end
      if (soft_reset_i) tx_q.valid <= 1'b0;
    end
  end

  always_comb begin
    tx_hdr_o           = '0;
    tx_hdr_o.pkt_type  = PktNotify;
    tx_hdr_o.len_flits = 8'd1;
    tx_hdr_o.src_lid   = tx_q.src;
    tx_hdr_o.dst_lid   = tx_q.dst;
    tx_hdr_o.ctx       = 8'(tx_q.ctx);
    tx_hdr_o.epoch     = tx_q.epoch;
    tx_hdr_o.round     = 8'(tx_q.round);
  end
  assign tx_valid_o = tx_q.valid;

  // ------------------------------------------------------- completion
  logic [NumCtx-1:0] complete, active_vec, ending_vec, d_ready_unused, d_gnt_unused;
  logic              done;
  logic [CtxIdxW-1:0] done_sel;

  always_comb begin
    for (int unsigned c = 0; c < NumCtx; c++) begin
      // §7: every expected notification heard (so every round released) and
      // every send ACKed.
      // (The planes are compared only for a running context that heard all.)
      complete[c] = 1'b0;
      if (ctx_q[c].active && !ctx_q[c].ending && all_recv_i[c]) begin
        complete[c] = acked_q[c] == used_q[c];
      end
      active_vec[c] = ctx_q[c].active;
      ending_vec[c] = ctx_q[c].ending;
    end
  end

  // A record that was offered and not taken stays the one offered: an
  // ending context stays ending until its record is taken (or a soft reset
  // clears every context), so the grant holds on it.
  stream_arbiter #(
    .NumReq(NumCtx)
  ) u_done_arb (
    .clk_i,
    .rst_ni,
    .valid_i(ending_vec),
    .ready_o(d_ready_unused),
    .valid_o(done_valid_o),
    .ready_i(done_ready_i && !soft_reset_i),
    .gnt_o  (d_gnt_unused),
    .idx_o  (done_sel)
  );

  assign done         = done_valid_o && done_ready_i && !soft_reset_i;
  assign done_rec_o   = '{ctx: CTX_WIDTH'(done_sel), epoch: ctx_q[done_sel].epoch,
                          status: ctx_q[done_sel].err ? CqNetError : CqOk,
                          err_code: ctx_q[done_sel].err ? ErrRetryLimit : ErrNone};
  assign fin_valid_o  = done;
  assign fin_ctx_o    = done_sel;

  // ------------------------------------------------------ state update
  always_comb begin
    ctx_d     = ctx_q;
    rq_head_d = rq_head_q;
    rq_tail_d = rq_tail_q;
    rq_cnt_d  = rq_cnt_q;

    if (tx_load && sel_retry) begin
      rq_head_d[g] = (32'(rq_head_q[g]) == Flat - 1) ? '0 : rq_head_q[g] + fidx_t'(1);
      rq_cnt_d[g]  = rq_cnt_q[g] - rqcnt_t'(1);
    end
    if (m_retry_push) begin
      rq_tail_d[m_ctx] = (32'(rq_tail_q[m_ctx]) == Flat - 1) ? '0 :
                         rq_tail_q[m_ctx] + fidx_t'(1);
      rq_cnt_d[m_ctx]  = rq_cnt_d[m_ctx] + rqcnt_t'(1);
    end

    for (int unsigned c = 0; c < NumCtx; c++) begin
      if (complete[c]) begin
        ctx_d[c].ending = 1'b1;
        ctx_d[c].err    = 1'b0;
      end
    end
    // §6: the abort forgets every send of the context (late responses then
    // match nothing and count DROP) and empties its retry queue.
    if (m_abort) begin
      ctx_d[m_ctx].ending = 1'b1;
      ctx_d[m_ctx].err    = 1'b1;
      rq_head_d[m_ctx]    = rq_tail_q[m_ctx];
      rq_cnt_d[m_ctx]     = '0;
    end
    if (done) begin
      ctx_d[done_sel].active = 1'b0;
      ctx_d[done_sel].ending = 1'b0;
    end
    if (act_fire) begin
      ctx_d[act_ctx_i] = '{
          active: 1'b1,
          ending: 1'b0,
          err: 1'b0,
          epoch: act_epoch_i,
          num_rounds: act_num_rounds_i
      };
    end
    // §8 CTRL.SOFT_RESET: every context, send and retry timer goes.
    if (soft_reset_i) begin
      ctx_d     = '0;
      rq_head_d = rq_tail_q;
      rq_cnt_d  = '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctx_q           <= '0;
      rq_head_q       <= '0;
      rq_tail_q       <= '0;
      rq_cnt_q        <= '0;
      now_q           <= '0;
    end else begin
      ctx_q           <= ctx_d;
      rq_head_q       <= rq_head_d;
      rq_tail_q       <= rq_tail_d;
      rq_cnt_q        <= rq_cnt_d;
      if (m_retry_push || rq_cnt_q != '0) begin
        now_q <= now_q + 32'd1;
      end
    end
  end

  // The send planes, in the order of the rules: a load, the matcher's ACK or
  // NACK, an abort, an activation; a soft reset clears everything. Later
  // assignments to the same bits win.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      used_q      <= '0;
      new_q       <= '0;
      flight_q    <= '0;
      wait_q      <= '0;
      acked_q     <= '0;
      new_first_q <= '0;
    end else if (soft_reset_i) begin
      used_q   <= '0;
      new_q    <= '0;
      flight_q <= '0;
      wait_q   <= '0;
      acked_q  <= '0;
    end else begin
      if (tx_load) begin
        if (sel_retry) begin
          wait_q[g][sel_slot] <= 1'b0;
        end else begin
          flat_t rest;
          rest           = new_q[g];
          rest[sel_slot] = 1'b0;
          new_q[g][sel_slot] <= 1'b0;
          new_first_q[g]     <= lowest_set(rest);
        end
        flight_q[g][sel_slot] <= 1'b1;
      end
      if (ack) begin
        flight_q[m_ctx][m_slot] <= 1'b0;
        acked_q[m_ctx][m_slot]  <= 1'b1;
      end
      if (m_retry_push) begin
        flight_q[m_ctx][m_slot] <= 1'b0;
        wait_q[m_ctx][m_slot]   <= 1'b1;
      end
      if (m_abort) begin
        used_q[m_ctx]   <= '0;
        new_q[m_ctx]    <= '0;
        flight_q[m_ctx] <= '0;
        wait_q[m_ctx]   <= '0;
        acked_q[m_ctx]  <= '0;
      end
      if (act_fire) begin
        flat_t sends;
        sends = act_sends();
        used_q[act_ctx_i]      <= sends;
        new_q[act_ctx_i]       <= sends;
        new_first_q[act_ctx_i] <= lowest_set(sends);
        flight_q[act_ctx_i]    <= '0;
        wait_q[act_ctx_i]      <= '0;
        acked_q[act_ctx_i]     <= '0;
      end
    end
  end

  // Tables without reset: each entry is written before it is read (the
  // destination table at activation, a retry count at the send's first load,
  // a retry queue entry at its push).
  always_ff @(posedge clk_i) begin
    if (act_fire) begin
      dst_q[act_ctx_i] <= act_dst_i;
    end
    if (tx_load) begin
      retries_q[g][sel_slot] <= !sel_retry ? 16'd0 :
                                (retries_q[g][sel_slot] == 16'hFFFF) ? 16'hFFFF :
                                retries_q[g][sel_slot] + 16'd1;
    end
    if (m_retry_push) begin
      rq_slot_q[m_ctx][rq_tail_q[m_ctx]] <= m_slot;
      // The matcher takes an entry the cycle after it arrived (no backlog,
      // asserted below), so the NACK was taken in the previous cycle.
      rq_time_q[m_ctx][rq_tail_q[m_ctx]] <= now_q - 32'd1;
    end
  end

  // --------------------------------------------------------------- events
  assign evt_notif_sent_o = send;
  assign evt_retry_o      = send && tx_q.retry;
  assign evt_ack_recv_o   = ack;
  assign evt_nack_recv_o  = nack;
  assign evt_drop_o       = drop;
  assign evt_stray_o      = stray;
  assign evt_error_o      = done && ctx_q[done_sel].err;

  assign busy_o = tx_q.valid || (resp_q_empty != '1) || (active_vec != '0);

  // ---------------------------------------------------------------- rules
`ifndef SYNTHESIS
  // Running totals for the conservation rules.
  logic [63:0] n_rx_q, n_ack_q, n_nack_q, n_drop_q, n_stray_q;
  logic [63:0] n_load_new_q, n_load_retry_q, n_sent_q, n_retry_q, n_abort_q, n_flushed_q;
  logic [63:0] rq_total;
  // A soft reset throws away the response popped in its cycle and the send in
  // the output register, uncounted.
  logic [63:0] n_reset_resp_q, n_reset_tx_q;

  logic [31:0] resp_occupancy;
  assign resp_occupancy = RespDamqSlots - 32'(resp_damq_free_o);

  always_comb begin
    rq_total = '0;
    for (int unsigned c = 0; c < NumCtx; c++) rq_total += 64'(rq_cnt_q[c]);
  end

  // Values of the previous cycle for the rules that compare two cycles. They
  // are registers rather than $past: Verilator keeps a sampled copy of a
  // $past argument and refreshes it on every model evaluation. Reset with
  // the state they shadow, so the first cycle out of reset compares reset
  // values with reset values.
  flat_t [NumCtx-1:0] new_prev_q, flight_prev_q, wait_prev_q, acked_prev_q;
  te_ctx_t [NumCtx-1:0] ctx_prev_q;
  rqcnt_t  [NumCtx-1:0] rq_cnt_prev_q;
  logic                 first_q;  // the first cycle out of reset
  logic act_fire_q, ack_q, retry_push_q, abort_q, load_q, arrived_q, soft_reset_q;
  logic [CtxIdxW-1:0] act_ctx_q, m_ctx_q, g_q;
  fidx_t m_slot_q, sel_slot_q;
  pkt_hdr_t           tx_hdr_prev_q;
  cq_rec_t            done_rec_prev_q;

  // The per-context rules at the end read the send planes, the context status
  // and the retry counts, and the events of the last edge. They are checked in
  // the cycles after one of those moved; in any other cycle nothing they read
  // has changed since they last held. The planes (and new_first_q) are
  // written only at the edges of a soft reset, a load, an ACK, a re-send
  // push, an abort or an activation (the branches of their process), so
  // those events, registered, say when they moved: comparing the five planes
  // with copies cost more than every rule together in an idle cycle. The
  // context status and the retry counts, written at every edge, are compared
  // with the previous cycle. first_q covers the reset values. (A vector built
  // bit by bit, so that the comparisons are made once per cycle rather than
  // substituted into every rule.)
  logic [2:0] te_moved_by;
  logic       te_moved;
  always_comb begin
    te_moved_by[0] = first_q || soft_reset_q || load_q || ack_q || retry_push_q || abort_q ||
                     act_fire_q;
    te_moved_by[1] = ctx_q != ctx_prev_q;
    te_moved_by[2] = rq_cnt_q != rq_cnt_prev_q;
  end
  assign te_moved = te_moved_by != '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      first_q         <= 1'b1;
      ctx_prev_q      <= '0;
      new_prev_q      <= '0;
      flight_prev_q   <= '0;
      wait_prev_q     <= '0;
      acked_prev_q    <= '0;
      rq_cnt_prev_q   <= '0;
      act_fire_q      <= 1'b0;
      ack_q           <= 1'b0;
      retry_push_q    <= 1'b0;
      abort_q         <= 1'b0;
      load_q          <= 1'b0;
      arrived_q       <= 1'b0;
      soft_reset_q    <= 1'b0;
      act_ctx_q       <= '0;
      m_ctx_q         <= '0;
      g_q             <= '0;
      m_slot_q        <= '0;
      sel_slot_q      <= '0;
      tx_hdr_prev_q   <= '0;
      done_rec_prev_q <= '0;
    end else begin
      first_q <= 1'b0;
      // Equal already unless something moved (te_moved covers exactly
      // these), so the copy is made only then.
      if (te_moved) begin
        ctx_prev_q    <= ctx_q;
        new_prev_q    <= new_q;
        flight_prev_q <= flight_q;
        wait_prev_q   <= wait_q;
        acked_prev_q  <= acked_q;
        rq_cnt_prev_q <= rq_cnt_q;
      end
      act_fire_q      <= act_fire;
      ack_q           <= ack;
      retry_push_q    <= m_retry_push;
      abort_q         <= m_abort;
      load_q          <= tx_load;
      arrived_q       <= rx_fire && rx_ok;
      soft_reset_q    <= soft_reset_i;
      act_ctx_q       <= act_ctx_i;
      m_ctx_q         <= m_ctx;
      g_q             <= g;
      m_slot_q        <= m_slot;
      sel_slot_q      <= sel_slot;
      tx_hdr_prev_q   <= tx_hdr_o;
      done_rec_prev_q <= done_rec_o;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      n_rx_q         <= '0;
      n_ack_q        <= '0;
      n_nack_q       <= '0;
      n_drop_q       <= '0;
      n_stray_q      <= '0;
      n_load_new_q   <= '0;
      n_load_retry_q <= '0;
      n_sent_q       <= '0;
      n_retry_q      <= '0;
      n_abort_q      <= '0;
      n_flushed_q    <= '0;
      n_reset_resp_q <= '0;
      n_reset_tx_q   <= '0;
    end else begin
      n_rx_q         <= n_rx_q + 64'(rx_fire);
      n_ack_q        <= n_ack_q + 64'(ack);
      n_nack_q       <= n_nack_q + 64'(nack);
      n_drop_q       <= n_drop_q + 64'(drop);
      n_stray_q      <= n_stray_q + 64'(stray);
      n_load_new_q   <= n_load_new_q + 64'(tx_load && !sel_retry);
      n_load_retry_q <= n_load_retry_q + 64'(tx_load && sel_retry);
      n_sent_q       <= n_sent_q + 64'(send);
      n_retry_q      <= n_retry_q + 64'(send && tx_q.retry);
      n_abort_q      <= n_abort_q + 64'(m_abort);
      // (A re-send loaded in the abort cycle left the queue by the load.)
      n_flushed_q    <= n_flushed_q +
                        (m_abort ? 64'(rq_cnt_q[m_ctx]) -
                                   64'(tx_load && sel_retry && g == m_ctx) : 64'd0) +
                        (soft_reset_i ? rq_total : 64'd0);
      n_reset_resp_q <= n_reset_resp_q + 64'(soft_reset_i && deq_fire);
      n_reset_tx_q   <= n_reset_tx_q + 64'(soft_reset_i && tx_q.valid && !send);
    end
  end

  // Every response taken lands in exactly one of ACK, NACK, DROP (matched
  // nothing) or stray, or still waits in the DAMQ (soft reset losses apart).
  // verilog_format: off
  `NIC_ASSERT(a_resp_conservation,
              n_rx_q == n_ack_q + n_nack_q + n_drop_q + n_stray_q + n_reset_resp_q +
              64'(resp_occupancy))
  `NIC_ASSERT_ONEHOT0(a_one_verdict_per_resp, {ack, nack, drop})
  `NIC_ASSERT_IMP(a_verdict_iff_pop, deq_fire && !soft_reset_i, (ack || nack || drop))
  // NOTIF_SENT counts first sends and re-sends; RETRY only re-sends; every
  // load leaves exactly once (the one in the output register apart).
  `NIC_ASSERT(a_sent_conservation,
              n_sent_q + 64'(tx_q.valid) + n_reset_tx_q == n_load_new_q + n_load_retry_q)
  `NIC_ASSERT(a_retry_counted_in_sent, n_retry_q <= n_sent_q)
  // Every matched NACK either ended the descriptor or queued exactly one
  // re-send, which is loaded, still queued, or forgotten by an abort / reset.
  `NIC_ASSERT(a_nack_conservation, n_nack_q == n_abort_q + n_load_retry_q + rq_total + n_flushed_q)
  `NIC_ASSERT(a_retry_only_after_nack, n_load_retry_q <= n_nack_q)
  // The matcher never lets responses pile up, so a popped entry arrived in
  // the previous cycle (the retry timestamp relies on it).
  `NIC_ASSERT(a_resp_damq_no_backlog, 32'(resp_damq_free_o) >= RespDamqSlots - 1)
  `NIC_ASSERT_IMP(a_resp_pop_after_arrival, deq_fire, arrived_q)
  `NIC_ASSERT(a_resp_always_ready, resp_rx_ready_o)
  // Sends: only released rounds, only from new (first) or a due retry.
  `NIC_ASSERT_IMP(a_send_round_released, tx_load && !sel_retry,
                  32'(round_of(sel_slot)) <= 32'(rounds_heard_i[g]))
  `NIC_ASSERT_IMP(a_send_from_new, tx_load && !sel_retry, new_q[g][sel_slot])
  // The new send that leaves is the lowest one (new_first_q is right when
  // it is used).
  `NIC_ASSERT_IMP(a_send_first_new, tx_load && !sel_retry,
                  (new_q[g] & ((flat_t'(1) << sel_slot) - flat_t'(1))) == '0)
  `NIC_ASSERT_IMP(a_retry_from_wait, tx_load && sel_retry, wait_q[g][sel_slot])
  `NIC_ASSERT_IMP(a_retry_after_delay, tx_load && sel_retry,
                  (now_q - head_time[g]) >= retry_delay_i)
  `NIC_ASSERT_IMP(a_send_ctx_running, tx_load, ctx_q[g].active && !ctx_q[g].ending)
  `NIC_ASSERT_IMP(a_send_has_peer, tx_load, sel_dst != LID_NONE)
  `NIC_ASSERT_NXT(a_tx_hold, tx_valid_o && !tx_ready_i && !soft_reset_i,
                  tx_valid_o && tx_hdr_o == tx_hdr_prev_q)
  `NIC_ASSERT_NXT(a_done_hold, done_valid_o && !done_ready_i && !soft_reset_i,
                  done_valid_o && done_rec_o == done_rec_prev_q)
  // Responses: an ACK or NACK only for a send in flight; one send per peer.
  `NIC_ASSERT_ONEHOT0(a_match_unique, match_hits())
  `NIC_ASSERT_IMP(a_ack_in_flight, m_match, flight_q[m_ctx][m_slot] && !acked_q[m_ctx][m_slot])
  `NIC_ASSERT_IMP(a_abort_on_limit, m_abort,
                  nack && retry_limit_i != '0 && retries_q[m_ctx][m_slot] >= retry_limit_i)
  `NIC_ASSERT_IMP(a_done_record_fields, done_valid_o,
                  ctx_q[done_sel].ending &&
                  (done_rec_o.status == CqOk) == (done_rec_o.err_code == ErrNone))
  `NIC_ASSERT_IMP(a_fin_is_done, fin_valid_o, ctx_q[fin_ctx_o].active && ctx_q[fin_ctx_o].ending)
  // OF / SE contract.
  `NIC_ASSERT_IMP(a_act_ctx_in_range, act_valid_i, 32'(act_ctx_i) < NumCtx)
  `NIC_ASSERT_IMP(a_act_ctx_idle, act_fire, !ctx_q[act_ctx_i].active && !ctx_active_i[act_ctx_i])
  `NIC_ASSERT_IMP(a_act_rounds_in_range, act_valid_i, 32'(act_num_rounds_i) <= MAX_ROUNDS)
  `NIC_ASSERT_IMP(a_act_fanout_in_range, act_valid_i,
                  act_fanout_i != '0 && 32'(act_fanout_i) <= K_MAX)
  `NIC_ASSERT_IMP(a_act_retry_queue_empty, act_fire, rq_cnt_q[act_ctx_i] == '0)
  `NIC_ASSERT_IMP(a_no_act_with_done_same_ctx, act_fire && done, act_ctx_i != done_sel)
  `NIC_ASSERT_KNOWN(a_resp_hdr_known, resp_rx_valid_i ? resp_rx_hdr_i : '0)
  // verilog_format: on


  // Per-context rules: each one rule over the contexts (c), in one process.
  // The events of the last edge on context c. act_here: it was activated,
  // which loads every plane.
  function automatic logic act_here(int unsigned c);
    return act_fire_q && 32'(act_ctx_q) == c;
  endfunction
  function automatic logic ack_here(int unsigned c);
    return ack_q && 32'(m_ctx_q) == c;
  endfunction
  function automatic logic push_here(int unsigned c);
    return retry_push_q && 32'(m_ctx_q) == c;
  endfunction
  function automatic logic load_here(int unsigned c);
    return load_q && 32'(g_q) == c;
  endfunction
  function automatic logic abort_here(int unsigned c);
    return abort_q && 32'(m_ctx_q) == c;
  endfunction

  // One state per send: never two at once (one outstanding send per slot).
  // verilog_format: off
  `NIC_ASSERT_FORALL(a_states_exclusive, te_moved, c, NumCtx, 1'b1,
                     ((new_q[c] & (flight_q[c] | wait_q[c] | acked_q[c])) |
                      (flight_q[c] & (wait_q[c] | acked_q[c])) | (wait_q[c] & acked_q[c])) == '0)
  // While the descriptor runs every send is in exactly one state; once it
  // is over nothing is pending (an abort forgot everything).
  `NIC_ASSERT_FORALL(a_states_cover_used, te_moved, c, NumCtx,
                     ctx_q[c].active && !ctx_q[c].ending,
                     (new_q[c] | flight_q[c] | wait_q[c] | acked_q[c]) == used_q[c])
  `NIC_ASSERT_FORALL(a_nothing_pending_when_over, te_moved, c, NumCtx,
                     !ctx_q[c].active || ctx_q[c].ending,
                     (new_q[c] | flight_q[c] | wait_q[c]) == '0)
  // The bits of each plane set at the last edge, against the one event that
  // may set them. Every ACKed send is marked once, by its ACK only.
  `NIC_ASSERT_FORALL(a_acked_only_by_ack, te_moved, c, NumCtx, !act_here(c),
                     (acked_q[c] & ~acked_prev_q[c]) ==
                     (ack_here(c) ? flat_t'(1) << m_slot_q : '0))
  // A send waits for a retry only after a NACK.
  `NIC_ASSERT_FORALL(a_wait_only_by_nack, te_moved, c, NumCtx, !act_here(c),
                     (wait_q[c] & ~wait_prev_q[c]) ==
                     (push_here(c) ? flat_t'(1) << m_slot_q : '0))
  // (An abort in the same cycle forgets the send just loaded.)
  `NIC_ASSERT_FORALL(a_flight_only_by_load, te_moved, c, NumCtx,
                     !act_here(c) && !abort_here(c),
                     (flight_q[c] & ~flight_prev_q[c]) ==
                     (load_here(c) ? flat_t'(1) << sel_slot_q : '0))
  `NIC_ASSERT_FORALL(a_new_only_by_act, te_moved, c, NumCtx, !act_here(c),
                     (new_q[c] & ~new_prev_q[c]) == '0)
  // new_first_q is the lowest new send: set in new_q, nothing below it.
  `NIC_ASSERT_FORALL(a_new_first_lowest, te_moved, c, NumCtx, new_q[c] != '0,
                     new_q[c][new_first_q[c]] &&
                     (new_q[c] & ((flat_t'(1) << new_first_q[c]) - flat_t'(1))) == '0)
  // §7: completion only when every expected notification is held (so every
  // round released) and every send ACKed.
  `NIC_ASSERT_FORALL(a_complete_rule, complete != '0, c, NumCtx, complete[c],
                     all_recv_i[c] && rounds_heard_i[c] == ctx_q[c].num_rounds &&
                     acked_q[c] == used_q[c] &&
                     (new_q[c] | flight_q[c] | wait_q[c]) == '0)
  `NIC_ASSERT_FORALL(a_ending_ok_all_acked, te_moved, c, NumCtx,
                     ctx_q[c].ending && !ctx_q[c].err,
                     acked_q[c] == used_q[c])
  // The retry queue holds exactly the waiting sends.
  `NIC_ASSERT_FORALL(a_retry_queue_is_wait, te_moved, c, NumCtx, 1'b1,
                     32'(rq_cnt_q[c]) == 32'($countones(wait_q[c])))
  `NIC_ASSERT_FORALL(a_retry_queue_fits, te_moved, c, NumCtx, 1'b1,
                     rq_cnt_q[c] <= rqcnt_t'(Flat))
  `NIC_ASSERT_FORALL(a_retry_head_waits, rq_cnt_q != '0, c, NumCtx, rq_cnt_q[c] != '0,
                     wait_q[c][head_slot[c]])
  // TE and SE agree on which contexts run (same activation, fin from TE).
  `NIC_ASSERT(a_active_matches_se, active_vec == ctx_active_i)
  `NIC_ASSERT_FORALL(a_se_heard_in_range, active_vec != '0, c, NumCtx, ctx_q[c].active,
                     32'(rounds_heard_i[c]) <= 32'(ctx_q[c].num_rounds))
  `NIC_ASSERT_FORALL(a_se_all_recv_rule, all_recv_i != '0, c, NumCtx, all_recv_i[c],
                     ctx_active_i[c] && rounds_heard_i[c] == ctx_q[c].num_rounds)
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
