// Completion unit of the barrier engine.
//
// Implements docs/barrier-protocol.md §7 (completion, one record at a time in
// the order the records were queued) and the completion side of §8 (CQ
// indices, soft reset). Structure, timing and the decisions the protocol doc
// leaves open: docs/nic/cq.md.
//
// Records come from TE's done port (OK, or NET_ERROR / RETRY_LIMIT) and from
// OF's error port (DESC_ERROR), through a small FIFO (RecDepth). A record from
// TE takes its context's flags and completion write from the table OF fills
// at activation (info_*); an error record needs none (§7: an error never does
// the completion write, always gets a CQ entry and the ERROR interrupt).
//
// Per record (one write in flight at a time, each waits for its response):
//   CMPL_REQ/RSP  status OK and flag_cmpl_write: cmpl_value -> cmpl_addr; a
//                 refused write turns the record into NET_ERROR / DMA_ERROR;
//   CQ_WAIT       CQ entry needed (OK and flag_cq_entry, or any error) and
//                 CQ_SIZE != 0: wait while the ring is full;
//   CQ_REQ/RSP    the entry's word 0, then word 1 (which holds the phase
//                 bit, so software never sees a new phase with an old word 0)
//                 at CQ_BASE + CQ_HEAD*16; then CQ_HEAD advances and the phase
//                 flips when it wraps to 0;
//   FINISH        one cycle: the interrupt causes and counter pulses.
//   FLUSH         after a soft reset: finish the memory handshake in flight.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_cq
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  parameter int unsigned NumCtx   = NumCtxDefault,
  parameter int unsigned RecDepth = 2,
  localparam int unsigned CtxIdxW = (NumCtx > 1) ? $clog2(NumCtx) : 1
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                soft_reset_i,   // CTRL.SOFT_RESET pulse
  // CQ CSRs.
  input  mem_addr_t           cq_base_i,      // CQ_BASE_HI:LO
  input  logic [15:0]         cq_size_i,      // CQ_SIZE.ENTRIES
  input  logic [15:0]         cq_tail_i,      // CQ_TAIL.INDEX
  output logic [15:0]         cq_head_o,      // CQ_HEAD.INDEX
  output logic                cq_phase_o,     // phase of the next entry (debug)
  // Completion info of a descriptor OF activates (OF's act_fire_o/act_info_o).
  input  logic                info_valid_i,
  input  logic [CtxIdxW-1:0]  info_ctx_i,
  input  cmpl_info_t          info_i,
  // Records from TE (done) and from OF (errors).
  input  logic                te_valid_i,
  output logic                te_ready_o,
  input  cq_rec_t             te_rec_i,
  input  logic                of_valid_i,
  output logic                of_ready_o,
  input  cq_rec_t             of_rec_i,
  // Memory write port.
  output logic                wr_req_valid_o,
  input  logic                wr_req_ready_i,
  output mem_addr_t           wr_req_addr_o,
  output mem_data_t           wr_req_data_o,
  input  logic                wr_rsp_valid_i,
  output logic                wr_rsp_ready_o,
  input  logic                wr_rsp_err_i,
  // Interrupt causes and counter increments (one-cycle pulses, one each per
  // record at most).
  output logic                intr_done_o,       // INTR_STATUS.DONE
  output logic                intr_error_o,      // INTR_STATUS.ERROR
  output logic                intr_dma_error_o,  // INTR_STATUS.DMA_ERROR
  output logic                evt_completion_o,  // CNT_COMPLETION (trace cq.complete)
  output logic                evt_error_o,       // CNT_ERROR
  output cq_rec_t             done_rec_o,        // the record finishing (with evt_completion_o)
  output logic                cq_stall_o,        // a record waits for CQ space
  output logic                busy_o
);

  `SF_STATIC_ASSERT(gen_num_ctx_check, NumCtx >= 1 && NumCtx <= 256)
  `SF_STATIC_ASSERT(gen_rec_depth_check, RecDepth >= 1)

  localparam int unsigned CntW = $clog2(RecDepth + 1);

  typedef logic [CntW-1:0] cnt_t;

  typedef struct packed {
    cq_rec_t    rec;
    cmpl_info_t info;  // all 0 for an error record
  } entry_t;

  typedef enum logic [2:0] {
    S_IDLE     = 3'd0,
    S_CMPL_REQ = 3'd1,
    S_CMPL_RSP = 3'd2,
    S_CQ_WAIT  = 3'd3,
    S_CQ_REQ   = 3'd4,
    S_CQ_RSP   = 3'd5,
    S_FINISH   = 3'd6,
    S_FLUSH    = 3'd7
  } state_e;

  // ------------------------------------------------- per-context info
  cmpl_info_t info_q[NumCtx];

  always_ff @(posedge clk_i) begin
    if (info_valid_i) info_q[info_ctx_i] <= info_i;
  end

  // ------------------------------------------------------ record FIFO
  // A soft reset empties it (and takes nothing in that cycle).
  logic push, pop, space, rec_wready, rec_valid;
  entry_t push_entry, rec_head;
  cnt_t rec_count;

  state_e state_q, state_d;

  // Intake: TE and OF in turn when both wait (prio_of_q: OF goes first next).
  logic prio_of_q;
  logic te_fire, of_fire;
  assign space      = rec_wready && state_q != S_FLUSH;
  assign te_ready_o = space && !(of_valid_i && prio_of_q);
  assign of_ready_o = space && !(te_valid_i && !prio_of_q);
  assign te_fire    = te_valid_i && te_ready_o;
  assign of_fire    = of_valid_i && of_ready_o;
  assign push       = te_fire || of_fire;

  always_comb begin
    push_entry = '0;
    if (te_fire) begin
      push_entry.rec = te_rec_i;
      // The context's table entry is stable here: the context is active until
      // TE's record is taken (that is when SE is told fin), so OF cannot
      // activate it again before this cycle's edge.
      if (te_rec_i.status == CqOk) push_entry.info = info_q[CtxIdxW'(te_rec_i.ctx)];
    end else begin
      push_entry.rec = of_rec_i;
    end
  end

  sync_fifo #(
    .T    (entry_t),
    .Depth(RecDepth)
  ) u_rec (
    .clk_i,
    .rst_ni,
    .clr_i   (soft_reset_i),
    .wvalid_i(push),
    .wready_o(rec_wready),
    .wdata_i (push_entry),
    .rvalid_o(rec_valid),
    .rready_i(state_q == S_IDLE),
    .rdata_o (rec_head),
    .count_o (rec_count)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prio_of_q <= 1'b0;
    end else begin
      if (te_fire) prio_of_q <= 1'b1;
      if (of_fire) prio_of_q <= 1'b0;
    end
  end

  // ---------------------------------------------------- record engine
  entry_t cur_q;
  logic word_q, word_d;  // CQ entry word being written
  logic dma_err_q, dma_err_d;  // a write of this record was refused
  logic [15:0] head_q, head_d;
  logic phase_q, phase_d;
  logic wr_out_q, wr_out_d;  // a write was taken, its response is due
  logic        req_hold_q;            // a write is presented but not taken

  logic [15:0] head_next;
  logic cq_full, need_entry, is_ok;
  cq_entry_t   entry;
  logic [CqEntryWords-1:0][63:0] entry_words;
  logic        wr_fire;

  assign is_ok      = cur_q.rec.status == CqOk;
  assign head_next  = (32'(head_q) + 1 >= 32'(cq_size_i)) ? '0 : head_q + 16'd1;
  // §7: full when (CQ_HEAD + 1) mod CQ_SIZE == CQ_TAIL; holds CQ_SIZE - 1.
  assign cq_full    = head_next == cq_tail_i;
  assign need_entry = (cq_size_i != '0) && (!is_ok || cur_q.info.flag_cq_entry);

  always_comb begin
    entry          = '0;
    entry.ctx      = cur_q.rec.ctx;
    entry.status   = cur_q.rec.status;
    entry.err_code = cur_q.rec.err_code;
    entry.epoch    = cur_q.rec.epoch;
    entry.phase    = phase_q;
  end
  assign entry_words = entry;

  assign pop = (state_q == S_IDLE) && rec_valid;

  // What a request carries; FLUSH re-presents the request held at the soft
  // reset (head_q has been reset by then) from hold_addr_q/hold_data_q.
  mem_addr_t hold_addr_q;
  mem_data_t hold_data_q;
  always_comb begin
    unique case (state_q)
      S_CMPL_REQ: begin
        wr_req_valid_o = 1'b1;
        wr_req_addr_o  = cur_q.info.cmpl_addr;
        wr_req_data_o  = cur_q.info.cmpl_value;
      end
      S_CQ_REQ: begin
        wr_req_valid_o = 1'b1;
        wr_req_addr_o  = cq_base_i + mem_addr_t'({head_q, 4'b0000}) +
                         mem_addr_t'({word_q, 3'b000});
        wr_req_data_o  = entry_words[word_q];
      end
      S_FLUSH: begin
        wr_req_valid_o = req_hold_q;
        wr_req_addr_o  = hold_addr_q;
        wr_req_data_o  = hold_data_q;
      end
      default: begin
        wr_req_valid_o = 1'b0;
        wr_req_addr_o  = hold_addr_q;
        wr_req_data_o  = hold_data_q;
      end
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_addr_q <= '0;
      hold_data_q <= '0;
    end else if (wr_req_valid_o) begin
      hold_addr_q <= wr_req_addr_o;
      hold_data_q <= wr_req_data_o;
    end
  end
  assign wr_fire        = wr_req_valid_o && wr_req_ready_i;
  assign wr_rsp_ready_o = 1'b1;

  always_comb begin
    state_d   = state_q;
    word_d    = word_q;
    dma_err_d = dma_err_q;
    head_d    = head_q;
    phase_d   = phase_q;
    wr_out_d  = (wr_out_q && !wr_rsp_valid_i) || wr_fire;
    unique case (state_q)
      S_IDLE: begin
        if (pop) begin
          word_d    = 1'b0;
          dma_err_d = 1'b0;
          // §7 step 1 [decided]: only an OK record does the completion write.
          state_d   = (rec_head.rec.status == CqOk && rec_head.info.flag_cmpl_write) ?
                      S_CMPL_REQ : S_CQ_WAIT;
        end
      end
      S_CMPL_REQ: begin
        if (wr_fire) state_d = S_CMPL_RSP;
      end
      S_CMPL_RSP: begin
        if (wr_rsp_valid_i) begin
          if (wr_rsp_err_i) dma_err_d = 1'b1;
          state_d = S_CQ_WAIT;
        end
      end
      S_CQ_WAIT: begin
        if (!need_entry) begin
          state_d = S_FINISH;
        end else if (!cq_full) begin
          word_d  = 1'b0;
          state_d = S_CQ_REQ;
        end
      end
      S_CQ_REQ: begin
        if (wr_fire) state_d = S_CQ_RSP;
      end
      S_CQ_RSP: begin
        if (wr_rsp_valid_i) begin
          if (wr_rsp_err_i) dma_err_d = 1'b1;
          if (word_q == 1'b0) begin
            word_d  = 1'b1;
            state_d = S_CQ_REQ;
          end else begin
            head_d = head_next;
            if (head_next == '0) phase_d = !phase_q;
            state_d = S_FINISH;
          end
        end
      end
      S_FINISH: state_d = S_IDLE;
      S_FLUSH: begin
        if (!wr_req_valid_o && !wr_out_q) state_d = S_IDLE;
      end
      default: state_d = S_IDLE;
    endcase
    if (soft_reset_i) begin
      // §8: pending completions are dropped; CQ_HEAD = 0, phase back to 1.
      head_d  = '0;
      phase_d = 1'b1;
      state_d = S_FLUSH;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= S_IDLE;
      word_q     <= 1'b0;
      dma_err_q  <= 1'b0;
      head_q     <= '0;
      phase_q    <= 1'b1;
      wr_out_q   <= 1'b0;
      req_hold_q <= 1'b0;
    end else begin
      state_q    <= state_d;
      word_q     <= word_d;
      dma_err_q  <= dma_err_d;
      head_q     <= head_d;
      phase_q    <= phase_d;
      wr_out_q   <= wr_out_d;
      req_hold_q <= wr_req_valid_o && !wr_req_ready_i;
    end
  end

  // The record being handled (171 bits): taken from the FIFO in IDLE, turned
  // into NET_ERROR / DMA_ERROR by a refused completion write. Updated in its
  // own clocked process: as part of the state machine's next state it was
  // copied on every model evaluation (the machine reads the memory response
  // inputs).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cur_q <= '0;
    end else if (state_q == S_IDLE && pop) begin
      cur_q <= rec_head;
    end else if (state_q == S_CMPL_RSP && wr_rsp_valid_i && wr_rsp_err_i) begin
      cur_q.rec.status   <= CqNetError;
      cur_q.rec.err_code <= ErrDmaError;
    end
  end

  // ---------------------------------------------------------- outputs
  logic finish;
  assign finish = (state_q == S_FINISH);

  // §7 step 3: DONE for an OK record with flag_irq; ERROR for every error
  // record whatever its flags. Step 4: every record counts COMPLETION, every
  // error record ERROR.
  assign intr_done_o      = finish && is_ok && cur_q.info.flag_irq;
  assign intr_error_o     = finish && !is_ok;
  assign intr_dma_error_o = finish && dma_err_q;
  assign evt_completion_o = finish;
  assign evt_error_o      = finish && !is_ok;
  assign done_rec_o       = cur_q.rec;
  assign cq_head_o        = head_q;
  assign cq_phase_o       = phase_q;
  assign cq_stall_o       = (state_q == S_CQ_WAIT) && need_entry && cq_full;
  assign busy_o           = (state_q != S_IDLE) || (rec_count != '0);

  // ---------------------------------------------------------------- rules
`ifndef SYNTHESIS
  // Records in order: each record carries its intake number (in a FIFO
  // beside the record FIFO, pushed, popped and cleared with it); they finish
  // in that order and none is lost or repeated.
  logic [31:0] n_in_q, n_out_q, cur_seq_q, seq_head;
  logic seq_wready_unused, seq_valid_unused;
  cnt_t seq_count_unused;
  sync_fifo #(
    .T    (logic [31:0]),
    .Depth(RecDepth)
  ) u_seq (
    .clk_i,
    .rst_ni,
    .clr_i   (soft_reset_i),
    .wvalid_i(push),
    .wready_o(seq_wready_unused),
    .wdata_i (n_in_q),
    .rvalid_o(seq_valid_unused),
    .rready_i(pop),
    .rdata_o (seq_head),
    .count_o (seq_count_unused)
  );
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      n_in_q    <= '0;
      n_out_q   <= '0;
      cur_seq_q <= '0;
    end else if (soft_reset_i) begin
      // Everything queued is dropped: numbering restarts.
      n_in_q  <= '0;
      n_out_q <= '0;
    end else begin
      if (push) n_in_q <= n_in_q + 32'd1;
      if (pop) cur_seq_q <= seq_head;
      if (finish) n_out_q <= n_out_q + 32'd1;
    end
  end
  // Values of the previous cycle for the rules that compare two cycles:
  // registers written at every edge, like $past, but without the sampled
  // copy of the argument that Verilator refreshes on every evaluation.
  logic soft_reset_prev_q, phase_prev_q;
  logic [15:0] head_prev_q;
  mem_addr_t   wr_req_addr_prev_q;
  mem_data_t   wr_req_data_prev_q;
  always_ff @(posedge clk_i) begin
    soft_reset_prev_q  <= soft_reset_i;
    phase_prev_q       <= phase_q;
    head_prev_q        <= head_q;
    wr_req_addr_prev_q <= wr_req_addr_o;
    wr_req_data_prev_q <= wr_req_data_o;
  end

  // verilog_format: off
  `NIC_ASSERT_IMP(a_records_in_order, finish, cur_seq_q == n_out_q)
  `NIC_ASSERT(a_no_record_lost,
              32'(rec_count) + 32'(state_q != S_IDLE && state_q != S_FLUSH) ==
              n_in_q - n_out_q)
  `NIC_ASSERT(a_one_intake_per_cycle, !(te_fire && of_fire))
  // §7: a completion write only for an OK record that asked for it; the CQ
  // entry only while the ring has room (never overwrite an unread entry).
  `NIC_ASSERT_IMP(a_cmpl_write_only_ok, state_q == S_CMPL_REQ, is_ok && cur_q.info.flag_cmpl_write)
  `NIC_ASSERT_IMP(a_no_cq_overwrite, state_q == S_CQ_WAIT && state_d == S_CQ_REQ, !cq_full)
  `NIC_ASSERT_IMP(a_cq_entry_when_needed, state_q == S_CQ_REQ, need_entry)
  `NIC_ASSERT_IMP(a_head_in_ring, state_q == S_CQ_REQ, head_q < cq_size_i)
  // Phase: flips exactly when CQ_HEAD wraps to 0 (not on a soft reset, which
  // sets it to 1).
  `NIC_ASSERT_IMP(a_phase_flips_on_wrap, !soft_reset_prev_q && head_q != head_prev_q,
                  (head_q == '0) == (phase_q != phase_prev_q))
  `NIC_ASSERT_IMP(a_phase_only_with_head, !soft_reset_prev_q && head_q == head_prev_q,
                  phase_q == phase_prev_q)
  `NIC_ASSERT_IMP(a_head_moves_by_one, !soft_reset_prev_q && head_q != head_prev_q,
                  head_q == head_prev_q + 16'd1 || head_q == '0)
  // One interrupt cause of each kind per record, only when it finishes;
  // DONE and ERROR exclude each other; ERROR iff the status is an error.
  `NIC_ASSERT_IMP(a_intr_only_on_finish,
                  (intr_done_o || intr_error_o || intr_dma_error_o || evt_error_o),
                  finish)
  `NIC_ASSERT(a_done_xor_error, !(intr_done_o && intr_error_o))
  `NIC_ASSERT_IMP(a_error_iff_error_status, finish, intr_error_o == (cur_q.rec.status != CqOk))
  `NIC_ASSERT_IMP(a_error_has_code, finish,
                  (cur_q.rec.status == CqOk) == (cur_q.rec.err_code == ErrNone))
  `NIC_ASSERT_NXT(a_finish_one_cycle, finish, state_q != S_FINISH)
  // Memory: one write in flight; a response only for a write in flight; a
  // presented write stays until taken.
  `NIC_ASSERT_IMP(a_one_write_in_flight, wr_fire, !wr_out_q || wr_rsp_valid_i)
  `NIC_ASSERT_IMP(a_wr_rsp_expected, wr_rsp_valid_i, wr_out_q)
  `NIC_ASSERT_NXT(a_wr_req_stable, wr_req_valid_o && !wr_req_ready_i,
                  wr_req_valid_o && wr_req_addr_o == wr_req_addr_prev_q &&
                  wr_req_data_o == wr_req_data_prev_q)
  // The table entry a TE record reads is not rewritten in the same cycle
  // (OF activates only idle contexts; TE reports only active ones).
  `NIC_ASSERT_IMP(a_te_ctx_in_range, te_valid_i, 32'(te_rec_i.ctx) < NumCtx)
  `NIC_ASSERT_IMP(a_info_not_with_te_same_ctx, info_valid_i && te_fire,
                  32'(info_ctx_i) != 32'(te_rec_i.ctx))
  `NIC_ASSERT_IMP(a_te_status_from_te, te_valid_i, te_rec_i.status != CqDescError)
  `NIC_ASSERT_IMP(a_of_status_desc_error, of_valid_i, of_rec_i.status == CqDescError)
  `NIC_ASSERT_KNOWN(a_state_known, state_q)
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
