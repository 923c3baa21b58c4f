// OF: descriptor intake and dispatch of the barrier engine.
//
// Implements docs/barrier-protocol.md §2 (HDQ, SDQ, round-robin between them),
// §3 (validation, in order; the first failure gives the error code) and the OF
// half of §5 (activation of SE and TE in the same cycle); for the group
// opcodes (MCAST_BARRIER, COMB_BARRIER) the validation order of
// docs/group-barrier.md §2 and the activation of the group engine instead. Structure, timing
// and the decisions the protocol doc leaves open: docs/nic/of.md.
//
// One descriptor at a time:
//   IDLE      pick a queue (enabled only): HDQ head -> desc (1 cycle), or
//   FETCH     the SDQ slot SDQ_BASE + SDQ_CONS*352, 44 word reads over the
//             memory port (several in flight, responses in order);
//   CHECK     §3 on the buffered descriptor (waits while CTRL.ENABLE = 0);
//             the verdict and the masked LID tables are registered, so what
//             is presented stays stable;
//   DISPATCH  either the activation (SE and TE must both be ready: they take
//             it in the same cycle) or the error record to the completion unit.
//   FLUSH     after a soft reset: finish the memory handshakes in flight.
//
// Interfaces (valid/ready, transfer when both are high; details in
// docs/nic/of.md):
//   hdq_*    HDQ_POST.POST pulse and the CSR window (first 352 bytes).
//   sdq_*    SDQ CSRs; sdq_cons_o drives SDQ_CONS.
//   rd_*     memory read port (nic_pkg: one 64-bit word per request).
//   act_*    activation: shared data, one valid/ready pair towards SE and one
//            towards TE (BARRIER), one towards the group engine (group
//            opcodes); act_fire_o / act_info_o for the completion unit.
//   err_*    error completions (§3 failures, SDQ DMA errors).
//   intr_*, evt_*  one-cycle pulses: INTR_STATUS causes and the trace events
//            of §9 (of.hdq_post, of.hdq_overflow, of.fetch, of.activate,
//            of.reject).

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_of
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  parameter int unsigned NumCtx   = NumCtxDefault,
  parameter int unsigned HdqDepth = 2,
  // HW_CFG2.MAX_MEMBERS: the largest MCAST_BARRIER group a root accepts.
  parameter int unsigned MaxMembers = MaxMembersDefault,
  localparam int unsigned CtxIdxW = (NumCtx > 1) ? $clog2(NumCtx) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // Control (CSRs).
  input  logic                 enable_i,        // CTRL.ENABLE
  input  logic                 soft_reset_i,    // CTRL.SOFT_RESET pulse
  // HDQ.
  input  logic                 hdq_post_i,      // HDQ_POST.POST pulse
  input  barrier_desc_t        hdq_desc_i,      // HDQ_WINDOW words 0..87
  output logic [7:0]           hdq_level_o,     // HDQ_POST.LEVEL
  output logic                 hdq_full_o,      // HDQ_POST.FULL
  // SDQ.
  input  mem_addr_t            sdq_base_i,      // SDQ_BASE_HI:LO
  input  logic [15:0]          sdq_size_i,      // SDQ_SIZE.ENTRIES
  input  logic [15:0]          sdq_prod_i,      // SDQ_PROD.INDEX
  output logic [15:0]          sdq_cons_o,      // SDQ_CONS.INDEX
  // Memory read port.
  output logic                 rd_req_valid_o,
  input  logic                 rd_req_ready_i,
  output mem_addr_t            rd_req_addr_o,
  input  logic                 rd_rsp_valid_i,
  output logic                 rd_rsp_ready_o,
  input  mem_data_t            rd_rsp_data_i,
  input  logic                 rd_rsp_err_i,
  // SE's per-context state (§3 rule 8).
  input  logic [NumCtx-1:0]    ctx_active_i,
  // Activation.
  output logic                 act_se_valid_o,
  input  logic                 act_se_ready_i,
  output logic                 act_te_valid_o,
  input  logic                 act_te_ready_i,
  output logic                 act_ge_valid_o,   // a group descriptor (docs/nic/ge.md)
  input  logic                 act_ge_ready_i,
  output logic                 act_fire_o,       // SE and TE, or the group engine, take it
  output logic [CtxIdxW-1:0]   act_ctx_o,
  output epoch_t               act_epoch_o,
  output nround_t              act_num_rounds_o,  // <= MAX_ROUNDS
  output logic [7:0]           act_fanout_o,      // 1 .. K_MAX
  output src_table_t           act_src_o,         // unused slots hold LID_NONE
  output dst_table_t           act_dst_o,         // unused slots hold LID_NONE
  output cmpl_info_t           act_info_o,        // for the completion unit
  output group_act_t           act_group_o,       // group opcodes only
  // Error completions.
  output logic                 err_valid_o,
  input  logic                 err_ready_i,
  output cq_rec_t              err_rec_o,
  // Interrupt causes and trace events (one-cycle pulses).
  output logic                 intr_hdq_overflow_o,
  output logic                 intr_dma_error_o,
  output logic                 evt_hdq_post_o,
  output logic                 evt_fetch_o,       // an SDQ slot was fetched
  output logic                 evt_activate_o,
  output logic                 evt_reject_o,
  output logic                 busy_o
);

  `SF_STATIC_ASSERT(gen_num_ctx_check, NumCtx >= 1 && NumCtx <= 256)
  `SF_STATIC_ASSERT(gen_hdq_depth_check, HdqDepth >= 1 && HdqDepth <= 255)
  `SF_STATIC_ASSERT(gen_max_members_check, MaxMembers >= 2 && MaxMembers <= MCAST_MAX_MEMBERS)

  localparam int unsigned HdqCntW = $clog2(HdqDepth + 1);
  localparam int unsigned WordW = $clog2(DescWords + 1);  // 0 .. 44

  typedef logic [HdqCntW-1:0] hdq_cnt_t;
  typedef logic [WordW-1:0] word_cnt_t;
  typedef logic [DescWords-1:0][63:0] desc_words_t;

  localparam hdq_cnt_t HdqFull = hdq_cnt_t'(HdqDepth);
  localparam word_cnt_t AllWords = word_cnt_t'(DescWords);

  typedef enum logic [2:0] {
    S_IDLE     = 3'd0,
    S_FETCH    = 3'd1,
    S_CHECK    = 3'd2,
    S_DISPATCH = 3'd3,
    S_FLUSH    = 3'd4
  } state_e;

  // ------------------------------------------------------------------- HDQ
  // A FIFO of whole descriptors; a soft reset empties it.
  logic hdq_push, hdq_pop, hdq_overflow, hdq_wready, hdq_valid;
  barrier_desc_t hdq_head;
  hdq_cnt_t      hdq_count;

  sync_fifo #(
    .T    (barrier_desc_t),
    .Depth(HdqDepth)
  ) u_hdq (
    .clk_i,
    .rst_ni,
    .clr_i   (soft_reset_i),
    .wvalid_i(hdq_post_i),
    .wready_o(hdq_wready),
    .wdata_i (hdq_desc_i),
    .rvalid_o(hdq_valid),
    .rready_i(hdq_pop),
    .rdata_o (hdq_head),
    .count_o (hdq_count)
  );

  // §2: a post while the HDQ holds HDQ_DEPTH descriptors is dropped. The
  // decision uses the count before this cycle's pop (no pop-to-post bypass).
  assign hdq_push     = hdq_post_i && hdq_wready;
  assign hdq_overflow = hdq_post_i && !soft_reset_i && (hdq_count == HdqFull);

  assign hdq_level_o = 8'(hdq_count);
  assign hdq_full_o  = (hdq_count == HdqFull);

  // ------------------------------------------------------------------- SDQ
  // §2: work is pending when SDQ_SIZE != 0, SDQ_PROD < SDQ_SIZE and
  // SDQ_CONS != SDQ_PROD. SDQ_CONS >= SDQ_SIZE (a size shrunk under the
  // engine) fetches nothing either (docs/nic/of.md, "SDQ_CONS >= SDQ_SIZE").
  logic [15:0] cons_q, cons_d;
  logic sdq_pending;

  assign sdq_pending = (sdq_size_i != '0) && (sdq_prod_i < sdq_size_i) &&
                       (cons_q < sdq_size_i) && (cons_q != sdq_prod_i);
  assign sdq_cons_o  = cons_q;

  // ----------------------------------------------------------------- state
  state_e state_q, state_d;
  desc_words_t desc_q;  // the descriptor being handled
  logic last_sdq_q, last_sdq_d;  // round-robin: the last queue served was the SDQ
  mem_addr_t slot_addr_q, slot_addr_d;
  word_cnt_t issued_q, issued_d, recvd_q, recvd_d;
  logic dma_err_q, dma_err_d;  // a word of this fetch came back with err
  err_code_e verdict_q;  // ErrNone: activate
  logic dma_q, dma_d;  // the error record is an SDQ DMA error
  logic        req_hold_q;              // a read request is presented but not taken

  barrier_desc_t desc;
  assign desc = barrier_desc_t'(desc_q);

  // -------------------------------------------------------- §3 validation
  // Rule 7 on the buffered descriptor: a used slot (round < num_rounds,
  // slot < fanout_k) holds a multicast LID, or a non-zero LID repeats among a
  // round's used dst slots or among its used src slots. It reads desc itself
  // rather than taking the rounds as an argument: Verilator stages a wide
  // argument in a temporary that it clears every time the calling process
  // runs, whether or not the call is reached.
  function automatic logic desc_lids_bad();
    logic bad;
    bad = 1'b0;
    for (int unsigned r = 0; r < MAX_ROUNDS; r++) begin
      for (int unsigned k = 0; k < K_MAX; k++) begin
        if (r < 32'(desc.num_rounds) && k < 32'(desc.fanout_k)) begin
          if (desc.round[r].dst_lid[k] >= MLID_BASE || desc.round[r].src_lid[k] >= MLID_BASE) begin
            bad = 1'b1;
          end
          for (int unsigned j = 0; j < k; j++) begin
            if (desc.round[r].dst_lid[k] != LID_NONE &&
                desc.round[r].dst_lid[k] == desc.round[r].dst_lid[j])
              bad = 1'b1;
            if (desc.round[r].src_lid[k] != LID_NONE &&
                desc.round[r].src_lid[k] == desc.round[r].src_lid[j])
              bad = 1'b1;
          end
        end
      end
    end
    return bad;
  endfunction

  logic ctx_in_range, ctx_busy;
  assign ctx_in_range = 32'(desc.ctx) < NumCtx;
  assign ctx_busy     = ctx_in_range && ctx_active_i[CtxIdxW'(desc.ctx)];

  // docs/group-barrier.md §2: the group opcodes skip the rounds' rules (4,
  // 5 and the slot LIDs of 7) and have a LID rule and a members rule of
  // their own; BARRIER ignores the group fields.
  logic is_mcast, is_comb, is_group, group_lid_bad, members_bad;
  assign is_mcast      = desc.opcode == OpcMcastBarrier;
  assign is_comb       = desc.opcode == OpcCombBarrier;
  assign is_group      = is_mcast || is_comb;
  assign group_lid_bad = desc.mlid < MLID_BASE ||
                         (is_mcast && desc.member != '0 &&
                          (desc.root_lid == LID_NONE || desc.root_lid >= MLID_BASE));
  assign members_bad   = desc.members == '0 || desc.member >= desc.members ||
                         (is_mcast && 32'(desc.members) > MCAST_MAX_MEMBERS) ||
                         (is_mcast && desc.member == '0 && 32'(desc.members) > MaxMembers);

  // Each rule on its own (index = rule number of §3, 8 = BAD_MEMBERS of
  // docs/group-barrier.md §2, 9 = CTX_BUSY); the verdict is the first
  // failure, coded as a priority chain. a_verdict_first_failure checks the
  // two codings against each other. Both are called only where a descriptor
  // is judged (with desc_lids_bad(), and only for BARRIER): the slot LID rule
  // scans every slot, and as continuous logic Verilator would evaluate it in
  // every cycle.
  function automatic logic [9:1] rule_fails(logic in_range, logic lid_bad, logic busy);
    logic [9:1] f;
    f[1] = desc.opcode != OpcBarrier && !is_group;
    f[2] = 32'(desc.version) != DESC_VERSION;
    f[3] = !in_range;
    f[4] = !is_group && 32'(desc.num_rounds) > MAX_ROUNDS;
    f[5] = !is_group && (desc.fanout_k == '0 || 32'(desc.fanout_k) > K_MAX);
    f[6] = desc.flag_cmpl_write && (desc.cmpl_addr == '0 || desc.cmpl_addr[2:0] != '0);
    f[7] = is_group ? group_lid_bad : lid_bad;
    f[8] = is_group && members_bad;
    f[9] = busy;
    return f;
  endfunction

  function automatic err_code_e judge(logic in_range, logic lid_bad, logic busy);
    if (desc.opcode != OpcBarrier && !is_group) return ErrBadOpcode;
    else if (32'(desc.version) != DESC_VERSION) return ErrBadVersion;
    else if (!in_range) return ErrBadContext;
    else if (!is_group && 32'(desc.num_rounds) > MAX_ROUNDS) return ErrBadRounds;
    else if (!is_group && (desc.fanout_k == '0 || 32'(desc.fanout_k) > K_MAX)) return ErrBadFanout;
    else if (desc.flag_cmpl_write && (desc.cmpl_addr == '0 || desc.cmpl_addr[2:0] != '0))
      return ErrBadAddr;
    else if (is_group ? group_lid_bad : lid_bad) return ErrBadLid;
    else if (is_group && members_bad) return ErrBadMembers;
    else if (busy) return ErrCtxBusy;
    else return ErrNone;
  endfunction

  // -------------------------------------------------------- memory reads
  logic rd_fire, rsp_fire, last_rsp;
  assign rd_req_valid_o = (state_q == S_FETCH && issued_q != AllWords) ||
                          (state_q == S_FLUSH && req_hold_q);
  assign rd_req_addr_o  = slot_addr_q + mem_addr_t'({issued_q, 3'b000});
  assign rd_fire        = rd_req_valid_o && rd_req_ready_i;
  assign rd_rsp_ready_o = 1'b1;
  assign rsp_fire       = rd_rsp_valid_i;
  assign last_rsp       = rsp_fire && (recvd_q == AllWords - word_cnt_t'(1));

  // ---------------------------------------------------------- dispatch
  // A BARRIER goes to SE and TE, a group descriptor to the group engine
  // alone (is_group reads the buffered descriptor, stable in DISPATCH).
  logic act_valid, act_fire, err_fire;
  assign act_valid      = (state_q == S_DISPATCH) && (verdict_q == ErrNone);
  assign act_se_valid_o = act_valid && !is_group && act_te_ready_i;
  assign act_te_valid_o = act_valid && !is_group && act_se_ready_i;
  assign act_ge_valid_o = act_valid && is_group;
  assign act_fire       = act_valid && (is_group ? act_ge_ready_i
                                                 : act_se_ready_i && act_te_ready_i);
  assign err_valid_o    = (state_q == S_DISPATCH) && (verdict_q != ErrNone);
  assign err_fire       = err_valid_o && err_ready_i;

  logic start_hdq, start_sdq;
  always_comb begin
    start_hdq = 1'b0;
    start_sdq = 1'b0;
    if (state_q == S_IDLE && enable_i && !soft_reset_i) begin
      // §2 [decided]: both queues with work are taken in turn.
      if (sdq_pending && (!hdq_valid || !last_sdq_q)) begin
        start_sdq = 1'b1;
      end else if (hdq_valid) begin
        start_hdq = 1'b1;
      end
    end
  end
  assign hdq_pop = start_hdq;

  always_comb begin
    state_d     = state_q;
    last_sdq_d  = last_sdq_q;
    slot_addr_d = slot_addr_q;
    issued_d    = issued_q + word_cnt_t'(rd_fire);
    recvd_d     = recvd_q + word_cnt_t'(rsp_fire);
    dma_err_d   = dma_err_q;
    dma_d       = dma_q;
    cons_d      = cons_q;
    unique case (state_q)
      S_IDLE: begin
        if (start_hdq) begin
          last_sdq_d = 1'b0;
          state_d    = S_CHECK;
        end else if (start_sdq) begin
          last_sdq_d  = 1'b1;
          slot_addr_d = sdq_base_i + 64'(cons_q) * 64'(BARRIER_DESC_BYTES);
          issued_d    = '0;
          recvd_d     = '0;
          dma_err_d   = 1'b0;
          state_d     = S_FETCH;
        end
      end
      S_FETCH: begin
        if (rsp_fire) begin
          dma_err_d = dma_err_q || rd_rsp_err_i;
        end
        if (last_rsp) begin
          // §2: SDQ_CONS advances when the slot is fetched, also when the
          // fetch failed (docs/nic/of.md: otherwise the slot would fail
          // forever).
          cons_d = (32'(cons_q) + 1 >= 32'(sdq_size_i)) ? '0 : cons_q + 16'd1;
          if (dma_err_q || rd_rsp_err_i) begin
            dma_d   = 1'b1;
            state_d = S_DISPATCH;
          end else begin
            state_d = S_CHECK;
          end
        end
      end
      S_CHECK: begin
        // CTRL.ENABLE = 0: no dispatch (§8); the descriptor waits here.
        if (enable_i) begin
          dma_d   = 1'b0;
          state_d = S_DISPATCH;
        end
      end
      S_DISPATCH: begin
        if (act_fire || err_fire) state_d = S_IDLE;
      end
      S_FLUSH: begin
        if (!rd_req_valid_o && issued_q == recvd_q) state_d = S_IDLE;
      end
      default: state_d = S_IDLE;
    endcase
    if (soft_reset_i) begin
      // §8: OF empties; the memory handshakes in flight still complete.
      cons_d  = '0;
      state_d = S_FLUSH;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= S_IDLE;
      last_sdq_q  <= 1'b0;
      slot_addr_q <= '0;
      issued_q    <= '0;
      recvd_q     <= '0;
      dma_err_q   <= 1'b0;
      dma_q       <= 1'b0;
      cons_q      <= '0;
      req_hold_q  <= 1'b0;
    end else begin
      state_q     <= state_d;
      last_sdq_q  <= last_sdq_d;
      slot_addr_q <= slot_addr_d;
      issued_q    <= issued_d;
      recvd_q     <= recvd_d;
      dma_err_q   <= dma_err_d;
      dma_q       <= dma_d;
      cons_q      <= cons_d;
      req_hold_q  <= rd_req_valid_o && !rd_req_ready_i;
    end
  end

  // The verdict: an SDQ DMA error when the fetch ends, else §3 when CHECK
  // judges (the descriptor stays in CHECK while CTRL.ENABLE = 0). Judged in
  // this clocked process, not in the state machine's always_comb: Verilator
  // turns a combinational block into data flow and would run the LID scan in
  // every cycle, while here it runs only in the judging cycle.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      verdict_q <= ErrNone;
    end else if (state_q == S_FETCH && last_rsp && (dma_err_q || rd_rsp_err_i)) begin
      verdict_q <= ErrDmaError;
    end else if (state_q == S_CHECK && enable_i) begin
      verdict_q <= judge(ctx_in_range, !is_group && desc_lids_bad(), ctx_busy);
    end
  end

  // The descriptor buffer needs no reset: it is read only after it was
  // filled (HDQ copy or 44 responses). Written in place, a whole descriptor
  // from the HDQ or one word per response.
  always_ff @(posedge clk_i) begin
    if (start_hdq) begin
      desc_q <= desc_words_t'(hdq_head);
    end else if (state_q == S_FETCH && rsp_fire) begin
      desc_q[recvd_q[$clog2(DescWords)-1:0]] <= rd_rsp_data_i;
    end
  end

  // ---------------------------------------------------------- outputs
  // Slots a descriptor does not use are handed on as LID_NONE, so SE and TE
  // see exactly the used slots (§5: LID_NONE slots are left out). The tables
  // are built once, when the descriptor is judged (the step into DISPATCH,
  // the only state in which they are presented), not in every cycle.
  logic       tbl_we;
  src_table_t act_src_q;
  dst_table_t act_dst_q;
  assign tbl_we = (state_q == S_CHECK) && enable_i;

  // No reset: presented only in DISPATCH, which CHECK always precedes.
  always_ff @(posedge clk_i) begin
    if (tbl_we && !is_group) begin
      for (int unsigned r = 0; r < MAX_ROUNDS; r++) begin
        for (int unsigned k = 0; k < K_MAX; k++) begin
          if (r < 32'(desc.num_rounds) && k < 32'(desc.fanout_k)) begin
            act_src_q[r][k] <= desc.round[r].src_lid[k];
            act_dst_q[r][k] <= desc.round[r].dst_lid[k];
          end else begin
            act_src_q[r][k] <= LID_NONE;
            act_dst_q[r][k] <= LID_NONE;
          end
        end
      end
    end
  end

  assign act_src_o = act_src_q;
  assign act_dst_o = act_dst_q;

  assign act_fire_o       = act_fire;
  assign act_ctx_o        = CtxIdxW'(desc.ctx);
  assign act_epoch_o      = desc.epoch;
  assign act_num_rounds_o = nround_t'(desc.num_rounds);
  assign act_fanout_o     = desc.fanout_k;
  assign act_info_o       = '{flag_cmpl_write: desc.flag_cmpl_write,
                              flag_cq_entry:   desc.flag_cq_entry,
                              flag_irq:        desc.flag_irq,
                              cmpl_addr:       desc.cmpl_addr,
                              cmpl_value:      desc.cmpl_value};
  assign act_group_o      = '{comb:     is_comb,
                              mlid:     desc.mlid,
                              root_lid: desc.root_lid,
                              member:   desc.member,
                              members:  desc.members};

  // §2: a refused fetch completes with ctx 0, epoch 0; §7: otherwise the
  // CQ entry carries the descriptor's raw ctx and epoch.
  assign err_rec_o = '{ctx:      dma_q ? '0 : desc.ctx,
                       epoch:    dma_q ? '0 : desc.epoch,
                       status:   CqDescError,
                       err_code: verdict_q};

  assign intr_hdq_overflow_o = hdq_overflow;
  assign intr_dma_error_o    = (state_q == S_FETCH) && last_rsp && (dma_err_q || rd_rsp_err_i) &&
                               !soft_reset_i;
  assign evt_hdq_post_o      = hdq_push;
  assign evt_fetch_o         = (state_q == S_FETCH) && last_rsp && !soft_reset_i;
  assign evt_activate_o      = act_fire;
  assign evt_reject_o        = err_fire;
  assign busy_o              = (state_q != S_IDLE) || (hdq_count != '0) || sdq_pending;

  // Reserved descriptor bits are ignored (formats.toml: ignore on read).
  logic unused_desc;
  assign unused_desc = ^{desc.rsvd_27};

  // ---------------------------------------------------------------- rules
`ifndef SYNTHESIS
  // §3: the verdict is the first rule that fails, in the doc's order.
  function automatic err_code_e rule_code(int unsigned i);
    unique case (i)
      1: return ErrBadOpcode;
      2: return ErrBadVersion;
      3: return ErrBadContext;
      4: return ErrBadRounds;
      5: return ErrBadFanout;
      6: return ErrBadAddr;
      7: return ErrBadLid;
      8: return ErrBadMembers;
      default: return ErrCtxBusy;
    endcase
  endfunction
  function automatic err_code_e first_failure(logic [9:1] f);
    for (int unsigned i = 1; i <= 9; i++) begin
      if (f[i]) return rule_code(i);
    end
    return ErrNone;
  endfunction
  // Values of the previous cycle for the rules that compare two cycles:
  // registers written at every edge, like $past, but without the sampled
  // copy of the argument that Verilator refreshes on every evaluation.
  logic soft_reset_prev_q, last_rsp_prev_q;
  logic [15:0] cons_prev_q;
  cq_rec_t     err_rec_prev_q;
  mem_addr_t   rd_req_addr_prev_q;
  always_ff @(posedge clk_i) begin
    soft_reset_prev_q  <= soft_reset_i;
    last_rsp_prev_q    <= last_rsp;
    cons_prev_q        <= cons_q;
    err_rec_prev_q     <= err_rec_o;
    rd_req_addr_prev_q <= rd_req_addr_o;
  end

  // Both judge the descriptor, the LID rule scanning every slot: as
  // implications they are evaluated only in the cycles a descriptor is judged
  // or presented.
  // verilog_format: off
  `NIC_ASSERT_IMP(a_verdict_first_failure, state_q == S_CHECK,
                  judge(ctx_in_range, !is_group && desc_lids_bad(), ctx_busy) ==
                  first_failure(rule_fails(ctx_in_range, !is_group && desc_lids_bad(), ctx_busy)))
  // Only a descriptor that passes every rule is activated; a busy context is
  // never activated (§3 rule 8, SE's a_act_ctx_idle is the same rule seen
  // from SE).
  `NIC_ASSERT_IMP(a_act_only_valid_desc, act_valid,
                  !dma_q && rule_fails(ctx_in_range, !is_group && desc_lids_bad(), ctx_busy) == '0)
  `NIC_ASSERT_IMP(a_no_activation_of_busy_ctx, act_fire, !ctx_active_i[act_ctx_o])
  `NIC_ASSERT_IMP(a_error_has_code, err_valid_o, err_rec_o.err_code != ErrNone)
  // SE and TE take the activation in the same cycle, or neither does.
  `NIC_ASSERT(a_act_se_te_together,
              (act_se_valid_o && act_se_ready_i) == (act_te_valid_o && act_te_ready_i))
  `NIC_ASSERT(a_one_outcome, !(act_valid && err_valid_o))
  // A group descriptor goes to the group engine only, a BARRIER never does.
  `NIC_ASSERT(a_act_ge_alone, !(act_ge_valid_o && (act_se_valid_o || act_te_valid_o)))
  `NIC_ASSERT_IMP(a_act_ge_only_group, act_ge_valid_o, is_group)
  // verilog_format: on
  // Valid/ready: what is presented stays until taken (a soft reset drops
  // it: SE, TE and the completion unit reset in the same cycle). The
  // descriptor and the LID tables are compared with a copy taken in the
  // cycle they were presented and not taken; the copy (5376 bits) is made in
  // those cycles only, not in every cycle as a $past of the descriptor.
  desc_words_t desc_shown_q;
  src_table_t  src_shown_q;
  dst_table_t  dst_shown_q;
  always_ff @(posedge clk_i) begin
    if (act_valid && !act_fire && !soft_reset_i) begin
      desc_shown_q <= desc_q;
      src_shown_q  <= act_src_q;
      dst_shown_q  <= act_dst_q;
    end
  end
  // verilog_format: off
  `NIC_ASSERT_NXT(a_act_stable, act_valid && !act_fire && !soft_reset_i,
                  act_valid && desc_q == desc_shown_q && act_src_q == src_shown_q &&
                  act_dst_q == dst_shown_q)
  `NIC_ASSERT_NXT(a_err_stable, err_valid_o && !err_ready_i && !soft_reset_i,
                  err_valid_o && err_rec_o == err_rec_prev_q)
  `NIC_ASSERT_NXT(a_rd_req_stable, rd_req_valid_o && !rd_req_ready_i,
                  rd_req_valid_o && rd_req_addr_o == rd_req_addr_prev_q)
  // Memory: no response without a request in flight; at most one
  // descriptor's words are requested; addresses are the slot's words.
  `NIC_ASSERT_IMP(a_rd_rsp_expected, rd_rsp_valid_i, recvd_q < issued_q)
  `NIC_ASSERT_IMP(a_rd_req_in_slot, rd_req_valid_o, issued_q < AllWords)
  // §2: HDQ never holds more than HDQ_DEPTH; an overflow is a post on a
  // full HDQ, and is the only thing that drops a post.
  `NIC_ASSERT(a_hdq_in_range, hdq_count <= HdqFull)
  `NIC_ASSERT_IMP(a_hdq_overflow_only_when_full, hdq_overflow, hdq_count == HdqFull)
  `NIC_ASSERT_IMP(a_hdq_post_lands, hdq_post_i && !soft_reset_i, hdq_push != hdq_overflow)
  `NIC_ASSERT_IMP(a_hdq_pop_nonempty, hdq_pop, hdq_count != '0)
  // §2: a fetch starts only on pending work; SDQ_CONS stays in the ring.
  `NIC_ASSERT_IMP(a_fetch_only_pending, start_sdq, sdq_pending)
  `NIC_ASSERT_IMP(a_cons_moves_by_one, cons_q != cons_prev_q && !soft_reset_prev_q,
                  last_rsp_prev_q && (cons_q == cons_prev_q + 16'd1 || cons_q == '0))
  // §8: nothing starts or is judged while the engine is disabled.
  `NIC_ASSERT_IMP(a_no_start_disabled, (start_hdq || start_sdq), enable_i)
  `NIC_ASSERT_IMP(a_no_judge_disabled, state_q == S_CHECK && state_d == S_DISPATCH, enable_i)
  `NIC_ASSERT_KNOWN(a_state_known, state_q)
  `NIC_ASSERT_KNOWN(a_act_valid_known, act_valid)
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
