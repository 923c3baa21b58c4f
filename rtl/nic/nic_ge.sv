// Group engine: the group barriers of the NIC (MCAST_BARRIER, COMB_BARRIER).
//
// Implements docs/group-barrier.md §2 (a group of one), §3 (a member: arrival,
// release, timeout and re-send, retry limit) and §4 (the root NIC: arrival set,
// early arrivals, activation, release, re-sent releases). Structure, timing
// and the decisions the spec leaves open: docs/nic/ge.md.
//
// Per context, one descriptor at a time (OF activates a context only while it
// is idle). State kept per context (ctx_q, timer_q) and per (context, member)
// (the root's arrival set as a sparse set: dense_q lists the members in the
// order they arrived, sparse_q gives each member's place in that list; m is in
// the set of context c when sparse_q[c][m] < count and dense_q[c][that place]
// = m). Emptying the set is setting its count to 0, so no cycle ever walks the
// members and the two arrays need no reset; the count and the largest index
// are kept as members arrive.
//
// Interfaces (valid/ready, transfer when both are high):
//   act_*   a group descriptor from OF (ctx idle), taken at once.
//   rx_*    one-flit ARRIVE, RELEASE and COMB_RELEASE headers from the rx
//           demux; refused while a unicast RELEASE waits or OF activates.
//   tx_*    ARRIVE, COMB_ARRIVE and RELEASE headers from an output register
//           (prio is stamped by the network arbiter).
//   done_*  completion records (OK, NET_ERROR / RELEASE_TIMEOUT) from an output
//           register; a context is active until its record is taken.
//   evt_*   one-cycle counter pulses.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_ge
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  parameter int unsigned NumCtx     = NumCtxDefault,
  parameter int unsigned MaxMembers = MaxMembersDefault,
  localparam int unsigned CtxIdxW = (NumCtx > 1) ? $clog2(NumCtx) : 1
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // Control (CSRs).
  input  lid_t                own_lid_i,            // NODE_LID
  input  logic                enable_i,             // CTRL.ENABLE
  input  logic                soft_reset_i,         // CTRL.SOFT_RESET pulse
  input  logic [31:0]         group_timeout_i,      // GROUP_TIMEOUT.CYCLES
  input  logic [15:0]         group_retry_limit_i,  // GROUP_RETRY_LIMIT.LIMIT
  // Activation (OF).
  input  logic                act_valid_i,
  output logic                act_ready_o,
  input  logic [CtxIdxW-1:0]  act_ctx_i,
  input  epoch_t              act_epoch_i,
  input  group_act_t          act_group_i,
  // Received headers (one flit each).
  input  logic                rx_valid_i,
  output logic                rx_ready_o,
  input  pkt_hdr_t            rx_hdr_i,
  // Sent headers.
  output logic                tx_valid_o,
  input  logic                tx_ready_i,
  output pkt_hdr_t            tx_hdr_o,
  // Completion records.
  output logic                done_valid_o,
  input  logic                done_ready_i,
  output cq_rec_t             done_rec_o,
  // Per-context state (CTX_BUSY, STATUS.ACTIVE_CTX).
  output logic [NumCtx-1:0]   ctx_active_o,
  // Counter pulses.
  output logic                evt_arrive_sent_o,   // CNT_ARRIVE_SENT
  output logic                evt_arrive_recv_o,   // CNT_ARRIVE_RECV
  output logic                evt_release_sent_o,  // CNT_RELEASE_SENT
  output logic                evt_release_recv_o,  // CNT_RELEASE_RECV
  output logic                evt_group_retry_o,   // CNT_GROUP_RETRY
  output logic                evt_dup_o,           // CNT_DUP
  output logic                evt_drop_o,          // CNT_DROP
  output logic                busy_o
);

  `SF_STATIC_ASSERT(gen_num_ctx_check, NumCtx >= 1 && NumCtx <= 256)
  `SF_STATIC_ASSERT(gen_max_members_check, MaxMembers >= 2 && MaxMembers <= MCAST_MAX_MEMBERS)

  localparam int unsigned MemberIdxW = $clog2(MaxMembers);
  localparam int unsigned SetEntries = NumCtx * MaxMembers;
  localparam int unsigned SetIdxW = $clog2(SetEntries);

  typedef logic [MemberIdxW-1:0] midx_t;  // a member index or a place in the list
  typedef logic [SetIdxW-1:0] set_idx_t;  // (context, member or place)

  typedef struct packed {
    logic        active;    // activated, record not yet taken
    logic        comb;      // COMB_BARRIER
    logic        root;      // MCAST_BARRIER member 0 of a group of two or more
    logic        closed;    // the outcome is decided (release, timeout, group of one)
    logic        fail;      // the outcome is NET_ERROR / RELEASE_TIMEOUT
    logic        rec_pend;  // the record waits for the done register
    logic        pend;      // the arrival (member) or the release (root) waits for tx
    logic        inflight;  // that header is in the tx register
    logic        running;   // member: the arrival left, GROUP_TIMEOUT runs
    epoch_t      epoch;
    lid_t        mlid;
    lid_t        root_lid;
    logic [PKT_HDR_MEMBER_W-1:0] member;
    logic [15:0] members;
    logic [15:0] retries;   // re-sends of this descriptor's arrival
    logic        last_valid;  // §3: the context's last finished epoch
    epoch_t      last_epoch;
    // The root's arrival set and released epoch (§4), kept across descriptors.
    logic [15:0] cnt;
    logic [15:0] max_idx;
    epoch_t      set_epoch;
    logic        rel_valid;
    epoch_t      rel_epoch;
  } ctx_t;

  typedef enum logic [1:0] {
    TxArrive  = 2'd0,  // a member's ARRIVE or COMB_ARRIVE
    TxRelease = 2'd1,  // a root's multicast RELEASE
    TxReply   = 2'd2   // a unicast RELEASE to a member that re-sent its ARRIVE (§4 rule 4)
  } tx_kind_e;

  ctx_t ctx_q[NumCtx];
  ctx_t ctx_d[NumCtx];
  logic [31:0] timer_q[NumCtx];
  logic [31:0] timer_d[NumCtx];
  midx_t sparse_q[SetEntries];
  midx_t dense_q[SetEntries];

  // tx output register and the unicast reply waiting for it.
  logic tx_valid_q, tx_valid_d, tx_resend_q, tx_resend_d;
  pkt_hdr_t tx_hdr_q, tx_hdr_d;
  tx_kind_e tx_kind_q, tx_kind_d;
  logic [CtxIdxW-1:0] tx_ctx_q, tx_ctx_d;
  logic rep_valid_q, rep_valid_d;
  pkt_hdr_t rep_hdr_q, rep_hdr_d;
  // done output register.
  logic done_valid_q, done_valid_d;
  logic [CtxIdxW-1:0] done_ctx_q, done_ctx_d;
  cq_rec_t done_rec_q, done_rec_d;

  logic tx_fire, done_fire, act_fire, rx_fire;
  assign tx_fire   = tx_valid_q && tx_ready_i;
  assign done_fire = done_valid_q && done_ready_i;
  assign act_fire  = act_valid_i && act_ready_o;
  assign rx_fire   = rx_valid_i && rx_ready_o;

  // An activation takes the cycle (it may rewrite the arrival set rx would
  // read); a waiting unicast reply holds rx (one reply register).
  assign act_ready_o = !soft_reset_i;
  assign rx_ready_o  = !rep_valid_q && !act_valid_i && !soft_reset_i;

  // ------------------------------------------------------------ rx reading
  logic rx_in_range;
  logic [CtxIdxW-1:0] rx_ctx;
  ctx_t rx_c;  // the addressed context's state before this edge
  logic [PKT_HDR_MEMBER_W-1:0] rx_m;
  logic rx_m_in_set_range;  // 1 .. MaxMembers - 1
  set_idx_t rx_sparse_idx, rx_dense_idx;
  midx_t rx_place;
  logic rx_bit;  // m is in the context's arrival set
  assign rx_in_range       = 32'(rx_hdr_i.ctx) < NumCtx;
  assign rx_ctx            = CtxIdxW'(rx_hdr_i.ctx);
  assign rx_c              = ctx_q[rx_ctx];
  assign rx_m              = rx_hdr_i.member;
  assign rx_m_in_set_range = rx_m != '0 && 32'(rx_m) < MaxMembers;
  assign rx_sparse_idx     = SetIdxW'(32'(rx_ctx) * MaxMembers + 32'(midx_t'(rx_m)));
  assign rx_place          = sparse_q[rx_sparse_idx];
  assign rx_dense_idx      = SetIdxW'(32'(rx_ctx) * MaxMembers + 32'(rx_place));
  assign rx_bit            = 16'(rx_place) < rx_c.cnt && dense_q[rx_dense_idx] == midx_t'(rx_m);
  // The epoch against the released epoch (rule 5) and the last one (§3).
  logic rx_after_rel, rx_before_last;
  assign rx_after_rel   = epoch_newer(rx_hdr_i.epoch, rx_c.rel_epoch);
  assign rx_before_last = epoch_newer(rx_c.last_epoch, rx_hdr_i.epoch);

  // The header of a context's pending send (read at the tx register's load).
  function automatic pkt_hdr_t send_hdr(logic root, logic comb, epoch_t epoch, lid_t mlid,
                                        lid_t root_lid, logic [PKT_HDR_MEMBER_W-1:0] member,
                                        logic [CtxIdxW-1:0] idx, lid_t own);
    pkt_hdr_t h;
    h           = '0;
    h.len_flits = 8'd1;
    h.src_lid   = own;
    h.ctx       = CTX_WIDTH'(idx);
    h.epoch     = epoch;
    if (root) begin
      h.pkt_type = PktRelease;
      h.dst_lid  = mlid;
    end else if (comb) begin
      h.pkt_type = PktCombArrive;
      h.dst_lid  = mlid;
    end else begin
      h.pkt_type = PktArrive;
      h.dst_lid  = root_lid;
      h.member   = member;
    end
    return h;
  endfunction

  // The first context with a pending send / a pending record: a priority
  // encoder over the contexts. Each context has at most one of either at a
  // time and a re-send waits GROUP_TIMEOUT, so no context starves another.
  logic [NumCtx-1:0] pend_vec, rec_vec;
  logic any_pend, any_rec;
  logic [CtxIdxW-1:0] pend_sel, rec_sel;
  always_comb begin
    for (int unsigned c = 0; c < NumCtx; c++) begin
      pend_vec[c] = ctx_q[c].pend;
      rec_vec[c]  = ctx_q[c].rec_pend && !ctx_q[c].inflight;
    end
  end
  always_comb begin
    pend_sel = '0;
    rec_sel  = '0;
    for (int c = NumCtx - 1; c >= 0; c--) begin
      if (pend_vec[c]) pend_sel = CtxIdxW'(c);
      if (rec_vec[c]) rec_sel = CtxIdxW'(c);
    end
  end
  assign any_pend = pend_vec != '0;
  assign any_rec  = rec_vec != '0;

  // ------------------------------------------------------------ next state
  logic set_we;       // m joins the set at place set_wplace
  midx_t set_wplace;
  logic ev_arrive_sent, ev_arrive_recv, ev_release_sent, ev_release_recv, ev_retry;
  logic ev_dup, ev_drop;
  // For the rules: this edge's rx verdicts and closings.
  logic chk_member_match;

  always_comb begin
    logic empty_set, bit_set;
    logic [15:0] cnt_n;
    logic [CtxIdxW-1:0] c;
    logic rx_mcast_dst, rx_own_dst, root_open;

    for (int unsigned i = 0; i < NumCtx; i++) begin
      ctx_d[i]   = ctx_q[i];
      timer_d[i] = timer_q[i];
    end
    tx_valid_d      = tx_valid_q && !tx_fire;
    tx_hdr_d        = tx_hdr_q;
    tx_kind_d       = tx_kind_q;
    tx_ctx_d        = tx_ctx_q;
    tx_resend_d     = tx_resend_q;
    rep_valid_d     = rep_valid_q;
    rep_hdr_d       = rep_hdr_q;
    done_valid_d    = done_valid_q && !done_fire;
    done_ctx_d      = done_ctx_q;
    done_rec_d      = done_rec_q;
    set_we          = 1'b0;
    set_wplace      = '0;
    ev_arrive_sent  = 1'b0;
    ev_arrive_recv  = 1'b0;
    ev_release_sent = 1'b0;
    ev_release_recv = 1'b0;
    ev_retry        = 1'b0;
    ev_dup          = 1'b0;
    ev_drop         = 1'b0;
    chk_member_match = 1'b0;
    empty_set       = 1'b0;
    bit_set         = 1'b0;
    cnt_n           = '0;
    c               = '0;
    rx_mcast_dst    = 1'b0;
    rx_own_dst      = 1'b0;
    root_open       = 1'b0;

    // §3 timeout: expiry GROUP_TIMEOUT cycles after the arrival left.
    for (int unsigned i = 0; i < NumCtx; i++) begin
      if (ctx_q[i].running) begin
        if (group_timeout_i != '0 && timer_q[i] + 32'd1 >= group_timeout_i) begin
          ctx_d[i].running = 1'b0;
          timer_d[i]       = '0;
          if (group_retry_limit_i != '0 && ctx_q[i].retries >= group_retry_limit_i) begin
            ctx_d[i].closed     = 1'b1;
            ctx_d[i].fail       = 1'b1;
            ctx_d[i].rec_pend   = 1'b1;
            ctx_d[i].last_valid = 1'b1;
            ctx_d[i].last_epoch = ctx_q[i].epoch;
          end else begin
            ctx_d[i].retries = ctx_q[i].retries + 16'd1;
            ctx_d[i].pend    = 1'b1;
          end
        end else begin
          timer_d[i] = timer_q[i] + 32'd1;
        end
      end
    end

    // A header leaves.
    if (tx_fire) begin
      c = tx_ctx_q;
      unique case (tx_kind_q)
        TxArrive: begin
          ev_arrive_sent = 1'b1;
          ev_retry       = tx_resend_q;
          ctx_d[c].inflight = 1'b0;
          if (!ctx_q[c].closed) begin
            ctx_d[c].running = 1'b1;
            timer_d[c]       = '0;
          end
        end
        TxRelease: begin
          // §4: the released epoch becomes E; the descriptor completes OK.
          ev_release_sent     = 1'b1;
          ctx_d[c].inflight   = 1'b0;
          ctx_d[c].closed     = 1'b1;
          ctx_d[c].rec_pend   = 1'b1;
          ctx_d[c].rel_valid  = 1'b1;
          ctx_d[c].rel_epoch  = ctx_q[c].epoch;
          ctx_d[c].last_valid = 1'b1;
          ctx_d[c].last_epoch = ctx_q[c].epoch;
        end
        default: ev_release_sent = 1'b1;  // TxReply
      endcase
    end

    // The tx register loads: the waiting reply first (it holds rx), then the
    // first context with a pending send.
    if (!tx_valid_q || tx_fire) begin
      if (rep_valid_q) begin
        tx_valid_d  = 1'b1;
        tx_hdr_d    = rep_hdr_q;
        tx_kind_d   = TxReply;
        tx_resend_d = 1'b0;
        rep_valid_d = 1'b0;
      end else if (any_pend) begin
        tx_valid_d  = 1'b1;
        tx_hdr_d    = send_hdr(ctx_q[pend_sel].root, ctx_q[pend_sel].comb, ctx_q[pend_sel].epoch,
                               ctx_q[pend_sel].mlid, ctx_q[pend_sel].root_lid,
                               ctx_q[pend_sel].member, pend_sel, own_lid_i);
        tx_kind_d   = ctx_q[pend_sel].root ? TxRelease : TxArrive;
        tx_ctx_d    = pend_sel;
        tx_resend_d = ctx_q[pend_sel].retries != '0;
        ctx_d[pend_sel].pend     = 1'b0;
        ctx_d[pend_sel].inflight = 1'b1;
      end
    end

    // A header arrives (never in an activation's cycle: rx_ready_o).
    if (rx_fire) begin
      c            = rx_ctx;
      rx_mcast_dst = rx_hdr_i.dst_lid >= MLID_BASE;
      rx_own_dst   = rx_hdr_i.dst_lid == own_lid_i;
      root_open    = rx_c.active && rx_c.root && !rx_c.closed;
      if (rx_hdr_i.pkt_type == PktArrive) begin
        if (rx_hdr_i.len_flits != 8'd1 || !rx_own_dst || !enable_i || !rx_in_range) begin
          ev_drop = 1'b1;  // malformed, §4 rule 1, rule 2
        end else if (root_open && rx_hdr_i.epoch == rx_c.epoch) begin
          // §4 rule 3: an arrival for the running barrier.
          if (rx_m == '0 || 16'(rx_m) >= rx_c.members) begin
            ev_drop = 1'b1;
          end else if (rx_bit) begin
            ev_dup = 1'b1;
          end else begin
            ev_arrive_recv   = 1'b1;
            set_we           = 1'b1;
            set_wplace       = midx_t'(rx_c.cnt);
            ctx_d[c].cnt     = rx_c.cnt + 16'd1;
            ctx_d[c].max_idx = (16'(rx_m) > rx_c.max_idx) ? 16'(rx_m) : rx_c.max_idx;
            if (rx_c.cnt + 16'd1 == rx_c.members - 16'd1) ctx_d[c].pend = 1'b1;
          end
        end else if (rx_c.rel_valid && rx_hdr_i.epoch == rx_c.rel_epoch) begin
          // §4 rule 4: the member missed the release of an epoch released.
          rep_valid_d           = 1'b1;
          rep_hdr_d             = '0;
          rep_hdr_d.pkt_type    = PktRelease;
          rep_hdr_d.len_flits   = 8'd1;
          rep_hdr_d.src_lid     = own_lid_i;
          rep_hdr_d.dst_lid     = rx_hdr_i.src_lid;
          rep_hdr_d.ctx         = rx_hdr_i.ctx;
          rep_hdr_d.epoch       = rx_hdr_i.epoch;
        end else if (!root_open && (!rx_c.rel_valid || rx_after_rel)) begin
          // §4 rule 5: an early arrival.
          empty_set = rx_c.cnt == '0 || epoch_newer(rx_hdr_i.epoch, rx_c.set_epoch);
          if (!rx_m_in_set_range) begin
            ev_drop = 1'b1;
          end else if (!empty_set && rx_hdr_i.epoch != rx_c.set_epoch) begin
            ev_drop = 1'b1;  // older than the set's epoch
          end else begin
            cnt_n   = empty_set ? '0 : rx_c.cnt;
            bit_set = !empty_set && rx_bit;
            if (empty_set) begin
              ctx_d[c].cnt       = '0;
              ctx_d[c].max_idx   = '0;
              ctx_d[c].set_epoch = rx_hdr_i.epoch;
            end
            if (bit_set) begin
              ev_dup = 1'b1;
            end else begin
              ev_arrive_recv   = 1'b1;
              set_we           = 1'b1;
              set_wplace       = midx_t'(cnt_n);
              ctx_d[c].cnt     = cnt_n + 16'd1;
              ctx_d[c].max_idx = (empty_set || 16'(rx_m) > rx_c.max_idx) ? 16'(rx_m)
                                                                          : rx_c.max_idx;
            end
          end
        end else begin
          ev_drop = 1'b1;  // §4 rule 6: stale
        end
      end else begin
        // RELEASE / COMB_RELEASE (§3). Only a multicast one, or a RELEASE to
        // this node, reaches a barrier; any other is malformed.
        if (rx_hdr_i.len_flits != 8'd1 || !rx_in_range ||
            !(rx_mcast_dst || (rx_own_dst && rx_hdr_i.pkt_type == PktRelease))) begin
          ev_drop = 1'b1;
        end else if (rx_c.active && !rx_c.root && !rx_c.closed &&
                     rx_c.comb == (rx_hdr_i.pkt_type == PktCombRelease) &&
                     rx_hdr_i.epoch == rx_c.epoch &&
                     (rx_hdr_i.dst_lid == rx_c.mlid || rx_own_dst)) begin
          ev_release_recv     = 1'b1;
          chk_member_match    = 1'b1;
          ctx_d[c].closed     = 1'b1;
          ctx_d[c].fail       = 1'b0;
          ctx_d[c].rec_pend   = 1'b1;
          ctx_d[c].pend       = 1'b0;
          ctx_d[c].running    = 1'b0;
          ctx_d[c].last_valid = 1'b1;
          ctx_d[c].last_epoch = rx_c.epoch;
        end else if (rx_c.last_valid && (rx_hdr_i.epoch == rx_c.last_epoch || rx_before_last)) begin
          ev_dup = 1'b1;
        end else begin
          ev_drop = 1'b1;
        end
      end
    end

    // Activation of a group descriptor on an idle context.
    if (act_fire) begin
      c = act_ctx_i;
      ctx_d[c].active   = 1'b1;
      ctx_d[c].comb     = act_group_i.comb;
      ctx_d[c].root     = 1'b0;
      ctx_d[c].closed   = 1'b0;
      ctx_d[c].fail     = 1'b0;
      ctx_d[c].rec_pend = 1'b0;
      ctx_d[c].pend     = 1'b0;
      ctx_d[c].inflight = 1'b0;
      ctx_d[c].running  = 1'b0;
      ctx_d[c].epoch    = act_epoch_i;
      ctx_d[c].mlid     = act_group_i.mlid;
      ctx_d[c].root_lid = act_group_i.root_lid;
      ctx_d[c].member   = PKT_HDR_MEMBER_W'(act_group_i.member);
      ctx_d[c].members  = act_group_i.members;
      ctx_d[c].retries  = '0;
      timer_d[c]        = '0;
      if (act_group_i.members == 16'd1) begin
        // §2: a group of one completes at once and sends nothing.
        ctx_d[c].closed     = 1'b1;
        ctx_d[c].rec_pend   = 1'b1;
        ctx_d[c].last_valid = 1'b1;
        ctx_d[c].last_epoch = act_epoch_i;
      end else if (!act_group_i.comb && act_group_i.member == '0) begin
        // §4 activation: take the set tagged E (unless it claims a member the
        // group does not have), empty any other.
        ctx_d[c].root = 1'b1;
        if (ctx_q[c].cnt != '0) begin
          if (ctx_q[c].set_epoch != act_epoch_i || ctx_q[c].max_idx >= act_group_i.members) begin
            ev_drop          = ctx_q[c].set_epoch == act_epoch_i;  // the discarded set, once
            ctx_d[c].cnt     = '0;
            ctx_d[c].max_idx = '0;
          end else if (ctx_q[c].cnt == act_group_i.members - 16'd1) begin
            ctx_d[c].pend = 1'b1;  // every member arrived early: release at once
          end
        end
        ctx_d[c].set_epoch = act_epoch_i;
      end else begin
        ctx_d[c].pend = 1'b1;  // §3: send the arrival
      end
    end

    // The done register: a record taken frees its context; then the first
    // context whose record waits (and whose header is not in the tx
    // register, so a context cannot be activated again under it).
    if (done_fire) begin
      ctx_d[done_ctx_q].active = 1'b0;
    end
    if (!done_valid_q || done_fire) begin
      if (any_rec) begin
        done_valid_d = 1'b1;
        done_ctx_d   = rec_sel;
        done_rec_d   = '{ctx:      CTX_WIDTH'(rec_sel),
                         epoch:    ctx_q[rec_sel].epoch,
                         status:   ctx_q[rec_sel].fail ? CqNetError : CqOk,
                         err_code: ctx_q[rec_sel].fail ? ErrReleaseTimeout : ErrNone};
        ctx_d[rec_sel].rec_pend = 1'b0;
      end
    end
  end

  // ------------------------------------------------------------ registers
  // §8 soft reset: every context, set, released epoch, pending send, timer
  // and record is cleared (the sets by their counts); the header in the tx
  // register is withdrawn.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned i = 0; i < NumCtx; i++) begin
        ctx_q[i]   <= '0;
        timer_q[i] <= '0;
      end
      tx_valid_q   <= 1'b0;
      tx_hdr_q     <= '0;
      tx_kind_q    <= TxArrive;
      tx_ctx_q     <= '0;
      tx_resend_q  <= 1'b0;
      rep_valid_q  <= 1'b0;
      rep_hdr_q    <= '0;
      done_valid_q <= 1'b0;
      done_ctx_q   <= '0;
      done_rec_q   <= '0;
    end else if (soft_reset_i) begin
      for (int unsigned i = 0; i < NumCtx; i++) begin
        ctx_q[i]   <= '0;
        timer_q[i] <= '0;
      end
      tx_valid_q   <= 1'b0;
      rep_valid_q  <= 1'b0;
      done_valid_q <= 1'b0;
    end else begin
      for (int unsigned i = 0; i < NumCtx; i++) begin
        ctx_q[i]   <= ctx_d[i];
        timer_q[i] <= timer_d[i];
      end
      tx_valid_q   <= tx_valid_d;
      tx_hdr_q     <= tx_hdr_d;
      tx_kind_q    <= tx_kind_d;
      tx_ctx_q     <= tx_ctx_d;
      tx_resend_q  <= tx_resend_d;
      rep_valid_q  <= rep_valid_d;
      rep_hdr_q    <= rep_hdr_d;
      done_valid_q <= done_valid_d;
      done_ctx_q   <= done_ctx_d;
      done_rec_q   <= done_rec_d;
    end
  end

  // The sparse set: one member joins per cycle at most. No reset: only
  // places below the count are believed, and a place is written before the
  // count covers it.
  always_ff @(posedge clk_i) begin
    if (set_we && !soft_reset_i) begin
      sparse_q[rx_sparse_idx] <= set_wplace;
      dense_q[SetIdxW'(32'(rx_ctx) * MaxMembers + 32'(set_wplace))] <= midx_t'(rx_m);
    end
  end

  // ------------------------------------------------------------ outputs
  // Header fields no group rule reads, and the state fields rx does not use.
  logic unused_rx;
  assign unused_rx = ^{rx_hdr_i.round, rx_hdr_i.flow_label, rx_hdr_i.rsvd_60, rx_hdr_i.answer,
                       rx_hdr_i.dscp, rx_hdr_i.ecn, rx_hdr_i.prio, rx_c};
  assign tx_valid_o   = tx_valid_q;
  assign tx_hdr_o     = tx_hdr_q;
  assign done_valid_o = done_valid_q;
  assign done_rec_o   = done_rec_q;
  always_comb begin
    for (int unsigned i = 0; i < NumCtx; i++) ctx_active_o[i] = ctx_q[i].active;
  end

  assign evt_arrive_sent_o  = ev_arrive_sent && !soft_reset_i;
  assign evt_arrive_recv_o  = ev_arrive_recv;
  assign evt_release_sent_o = ev_release_sent && !soft_reset_i;
  assign evt_release_recv_o = ev_release_recv;
  assign evt_group_retry_o  = ev_retry && !soft_reset_i;
  assign evt_dup_o          = ev_dup;
  assign evt_drop_o         = ev_drop;
  assign busy_o             = (ctx_active_o != '0) || tx_valid_q || rep_valid_q || done_valid_q;

  // ------------------------------------------------------------ rules
`ifndef SYNTHESIS
  pkt_hdr_t tx_hdr_prev_q;
  cq_rec_t  done_rec_prev_q;
  always_ff @(posedge clk_i) begin
    tx_hdr_prev_q   <= tx_hdr_q;
    done_rec_prev_q <= done_rec_q;
  end

  // verilog_format: off
  // §7 (docs/group-barrier.md): a root completes OK only with members - 1
  // arrivals of its epoch; a member only on a matching release; a group of
  // one only at its activation. Checked where the outcome is decided.
  `NIC_ASSERT_FORALL(a_root_ok_only_with_all_arrivals, 1'b1, i, NumCtx,
                     !ctx_q[i].closed && ctx_d[i].closed && !ctx_d[i].fail && ctx_q[i].root,
                     tx_fire && tx_kind_q == TxRelease && 32'(tx_ctx_q) == i &&
                     ctx_q[i].cnt == ctx_q[i].members - 16'd1 &&
                     ctx_q[i].set_epoch == ctx_q[i].epoch)
  `NIC_ASSERT_FORALL(a_member_ok_only_on_release, 1'b1, i, NumCtx,
                     !ctx_q[i].closed && ctx_d[i].closed && !ctx_d[i].fail && ctx_q[i].active &&
                     !ctx_q[i].root,
                     chk_member_match && 32'(rx_ctx) == i &&
                     rx_hdr_i.epoch == ctx_q[i].epoch &&
                     (rx_hdr_i.dst_lid == ctx_q[i].mlid || rx_hdr_i.dst_lid == own_lid_i))
  `NIC_ASSERT_FORALL(a_group_of_one_at_activation, 1'b1, i, NumCtx,
                     !ctx_q[i].closed && ctx_d[i].closed && !ctx_q[i].active,
                     act_fire && 32'(act_ctx_i) == i && act_group_i.members == 16'd1)
  // A release is sent only by a root whose set is complete.
  `NIC_ASSERT_IMP(a_release_only_complete, tx_valid_q && tx_kind_q == TxRelease,
                  ctx_q[tx_ctx_q].root && ctx_q[tx_ctx_q].inflight &&
                  ctx_q[tx_ctx_q].cnt == ctx_q[tx_ctx_q].members - 16'd1)
  // One completion per activated descriptor: a record only for an active,
  // decided context whose record was not taken; activation of idle contexts
  // only; a context leaves only through its record.
  `NIC_ASSERT_IMP(a_act_ctx_idle, act_fire, !ctx_q[act_ctx_i].active)
  `NIC_ASSERT_IMP(a_done_active, done_valid_q,
                  ctx_q[done_ctx_q].active && ctx_q[done_ctx_q].closed &&
                  !ctx_q[done_ctx_q].rec_pend && 32'(done_rec_q.ctx) == 32'(done_ctx_q))
  `NIC_ASSERT_FORALL(a_rec_pend_closed, 1'b1, i, NumCtx, ctx_q[i].rec_pend,
                     ctx_q[i].active && ctx_q[i].closed)
  `NIC_ASSERT_FORALL(a_leave_only_by_record, 1'b1, i, NumCtx,
                     ctx_q[i].active && !ctx_d[i].active,
                     done_fire && 32'(done_ctx_q) == i)
  `NIC_ASSERT_IMP(a_ok_has_no_code, done_valid_q,
                  (done_rec_q.status == CqOk) == (done_rec_q.err_code == ErrNone))
  // At most one send per context is queued or in the tx register; a member
  // runs its timer only with its arrival gone.
  `NIC_ASSERT_FORALL(a_one_send_per_ctx, 1'b1, i, NumCtx, ctx_q[i].active,
                     32'(ctx_q[i].pend) + 32'(ctx_q[i].inflight) + 32'(ctx_q[i].running) <= 1)
  `NIC_ASSERT_FORALL(a_idle_ctx_quiet, 1'b1, i, NumCtx, !ctx_q[i].active,
                     !ctx_q[i].pend && !ctx_q[i].inflight && !ctx_q[i].running &&
                     !ctx_q[i].rec_pend)
  // The set's count is the number of distinct indices 1 .. max_idx set.
  `NIC_ASSERT_FORALL(a_set_count_in_range, 1'b1, i, NumCtx, 1'b1,
                     ctx_q[i].cnt <= ctx_q[i].max_idx && 32'(ctx_q[i].max_idx) < MaxMembers)
  // One verdict per header taken.
  `NIC_ASSERT_IMP(a_rx_one_verdict, rx_fire,
                  $onehot({ev_drop && !act_fire, ev_dup, ev_arrive_recv, ev_release_recv,
                           rep_valid_d && !rep_valid_q}))
  `NIC_ASSERT_IMP(a_no_verdict_without_rx, !rx_fire,
                  !ev_dup && !ev_arrive_recv && !ev_release_recv && !(ev_drop && !act_fire))
  // Valid/ready: what is shown stays until taken (a soft reset withdraws it).
  `NIC_ASSERT_NXT(a_tx_stable, tx_valid_q && !tx_ready_i && !soft_reset_i,
                  tx_valid_q && tx_hdr_q == tx_hdr_prev_q)
  `NIC_ASSERT_NXT(a_done_stable, done_valid_q && !done_ready_i && !soft_reset_i,
                  done_valid_q && done_rec_q == done_rec_prev_q)
  `NIC_ASSERT_KNOWN(a_tx_valid_known, tx_valid_q)
  `NIC_ASSERT_KNOWN(a_done_valid_known, done_valid_q)
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
