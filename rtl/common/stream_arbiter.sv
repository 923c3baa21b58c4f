// Round-robin arbiter for valid/ready streams that locks onto its grant.
//
// NumReq sources, each a valid/ready stream, share one output stream. Once a
// source is shown on the output (valid_o with its index) and not taken, it
// keeps the grant until its transfer is taken (valid_o && ready_i), even if a
// source nearer the round-robin pointer starts asking meanwhile: the word on
// the output must not change while it waits (the AXI-stream rule). A bare
// rr_arbiter re-picks every cycle, so a late source with higher priority
// would replace the waiting word.
//
// The lock ends if the locked source withdraws its valid (a source may drop a
// word on a soft reset); the output then re-arbitrates among the others in
// that same cycle. The grant is combinational from valid_i, so a source can be
// served in the cycle it asks, and fairness is rr_arbiter's: the pointer moves
// past the winner when its transfer is taken, so a source that keeps asking
// waits for at most NumReq - 1 transfers of others (asserted below).
//
// The cell carries no data: the user selects the granted source's word with
// idx_o, which keeps wide words out of the cell's logic.

`include "syncfab_assert.svh"

module stream_arbiter #(
  parameter int unsigned  NumReq = 2,
  localparam int unsigned IdxW   = (NumReq > 1) ? $clog2(NumReq) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // Sources.
  input  logic [NumReq-1:0] valid_i,
  output logic [NumReq-1:0] ready_o,  // = gnt_o & ready_i
  // Output stream.
  output logic              valid_o,  // = |valid_i
  input  logic              ready_i,
  output logic [NumReq-1:0] gnt_o,    // one-hot or zero
  output logic [IdxW-1:0]   idx_o     // index of gnt_o; 0 when nothing is granted
);

  `SF_STATIC_ASSERT(gen_num_req_check, NumReq >= 1)

  typedef logic [IdxW-1:0] idx_t;

  logic lock_q, lock_d, fire;
  idx_t lock_idx_q, lock_idx_d;
  logic [NumReq-1:0] arb_req;

  // While locked, only the locked source (still asking) is shown to the
  // round-robin arbiter, which then grants it whatever its pointer says.
  assign arb_req = (lock_q && valid_i[lock_idx_q]) ? (NumReq'(1) << lock_idx_q) : valid_i;

  rr_arbiter #(
    .NumReq(NumReq)
  ) u_rr (
    .clk_i,
    .rst_ni,
    .req_i      (arb_req),
    .ack_i      (fire),
    .gnt_o      (gnt_o),
    .gnt_idx_o  (idx_o),
    .gnt_valid_o(valid_o)
  );

  assign fire    = valid_o && ready_i;
  assign ready_o = gnt_o & {NumReq{ready_i}};

  // Shown and not taken: locked for the next cycle.
  assign lock_d     = valid_o && !ready_i;
  assign lock_idx_d = lock_d ? idx_o : lock_idx_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lock_q     <= 1'b0;
      lock_idx_q <= '0;
    end else begin
      lock_q     <= lock_d;
      lock_idx_q <= lock_idx_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules (immediate form: the arbiter sits in blocks that must simulate fast)
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  // What the output showed without it being taken, at the last edge (own
  // registers rather than $past, which keeps a sampled copy, and independent
  // of the lock logic they check).
  logic shown_q;
  idx_t shown_idx_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      shown_q     <= 1'b0;
      shown_idx_q <= '0;
    end else begin
      shown_q     <= valid_o && !ready_i;
      shown_idx_q <= idx_o;
    end
  end

  // Transfers of other sources while source i kept asking without being
  // taken; starved_q: at the last edge one of them reached NumReq. The
  // counts move only on a transfer and fall back to 0 when their source
  // stops asking, so with no transfer and every count at 0 nothing changes
  // (an idle arbiter does no work here).
  typedef logic [IdxW:0] wait_t;
  localparam wait_t WaitBound = wait_t'(NumReq - 1);
  wait_t [NumReq-1:0] wait_q;
  logic               starved_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wait_q    <= '0;
      starved_q <= 1'b0;
    end else if (fire || wait_q != '0) begin
      starved_q <= 1'b0;
      for (int unsigned i = 0; i < NumReq; i++) begin
        if (!valid_i[i] || ready_o[i]) begin
          wait_q[i] <= '0;
        end else if (fire) begin
          if (wait_q[i] == WaitBound) begin
            starved_q <= 1'b1;
          end else begin
            wait_q[i] <= wait_q[i] + wait_t'(1);
          end
        end
      end
    end else begin
      starved_q <= 1'b0;
    end
  end
`endif  // SYNTHESIS

  // Only a source that asks is granted, and the output asks iff one does.
  // verilog_format: off
  `SF_ASSERT_IMM(a_gnt_only_valid, (gnt_o & ~valid_i) == '0)
  `SF_ASSERT_IMM(a_valid_iff_any, valid_o == (valid_i != '0))
  // A grant shown and not taken stays on its source until taken, unless the
  // source withdraws.
  `SF_ASSERT_IMM_IMP(a_gnt_stable_until_taken, shown_q && valid_i[shown_idx_q],
                     valid_o && idx_o == shown_idx_q)
  // A source that keeps asking is taken before NumReq transfers of others.
  `SF_ASSERT_IMM(a_no_starvation, !starved_q)
  // verilog_format: on

endmodule
