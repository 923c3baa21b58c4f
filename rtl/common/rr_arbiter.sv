// Round-robin arbiter.
//
// The grant is combinational from req_i so a requester can be served in the
// cycle it asks. Fairness comes from a priority pointer that only moves when a
// grant is taken (ack_i): a grant that is not consumed (for example because the
// shared resource is busy) keeps the same winner, so a requester is never
// skipped and the downstream may hold off without losing its place. After a
// taken grant the winner drops to the lowest priority, which bounds any
// requester's wait to NumReq - 1 taken grants.

`include "syncfab_assert.svh"

module rr_arbiter #(
  parameter int unsigned NumReq = 4,
  localparam int unsigned IdxW = (NumReq > 1) ? $clog2(NumReq) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic [NumReq-1:0] req_i,
  input  logic              ack_i,        // the current grant is taken this cycle
  output logic [NumReq-1:0] gnt_o,        // one-hot or zero
  output logic [IdxW-1:0]   gnt_idx_o,    // index of gnt_o; 0 when nothing granted
  output logic              gnt_valid_o   // = |req_i
);

  `SF_STATIC_ASSERT(gen_num_req_check, NumReq >= 1)

  typedef logic [IdxW-1:0] idx_t;

  localparam idx_t LastIdx = idx_t'(NumReq - 1);

  idx_t ptr_q, ptr_d;  // highest-priority requester

  // Search the requesters cyclically from the pointer. NumReq is small
  // (ports, queues), so a linear scan is cheaper to read than a double-width
  // priority encoder and synthesises to the same thing.
  always_comb begin
    logic found;
    int unsigned cand;
    found     = 1'b0;
    gnt_o     = '0;
    gnt_idx_o = '0;
    for (int unsigned off = 0; off < NumReq; off++) begin
      cand = 32'(ptr_q) + off;
      if (cand >= NumReq) begin
        cand -= NumReq;
      end
      if (!found && req_i[cand]) begin
        found       = 1'b1;
        gnt_o[cand] = 1'b1;
        gnt_idx_o   = idx_t'(cand);
      end
    end
  end

  assign gnt_valid_o = |req_i;

  always_comb begin
    ptr_d = ptr_q;
    if (ack_i && gnt_valid_o) begin
      ptr_d = (gnt_idx_o == LastIdx) ? '0 : gnt_idx_o + idx_t'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ptr_q <= '0;
    end else begin
      ptr_q <= ptr_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
  `SF_ASSERT_ONEHOT0(a_gnt_onehot0, gnt_o)
  `SF_ASSERT(a_gnt_subset_of_req, (gnt_o & ~req_i) == '0)
  `SF_ASSERT(a_gnt_iff_req, (gnt_o != '0) == gnt_valid_o)
  `SF_ASSERT(a_gnt_idx_matches, gnt_valid_o |-> gnt_o[gnt_idx_o])
  `SF_ASSERT(a_gnt_idx_zero_when_idle, !gnt_valid_o |-> gnt_idx_o == '0)
  `SF_ASSERT(a_ptr_in_range, ptr_q <= LastIdx)
  // The pointer holds unless a grant is taken.
  `SF_ASSERT(a_ptr_holds_without_ack, !(ack_i && gnt_valid_o) |=> $stable(ptr_q))
  // The winner is the pointer's requester whenever that one asks.
  `SF_ASSERT(a_ptr_req_wins, req_i[ptr_q] |-> gnt_idx_o == ptr_q)

endmodule
