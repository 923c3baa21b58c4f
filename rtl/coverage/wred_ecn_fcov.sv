// Functional cover points of WRED/ECN (wred_ecn): a decision with the queue
// below Kmin, between Kmin and Kmax, and at or above Kmax, and both outcomes
// (mark, drop). Bound into wred_ecn by the coverage tree only
// (docs/coverage.md).

`include "syncfab_assert.svh"

module wred_ecn_fcov #(
  parameter int unsigned QLenW  = 16,
  parameter int unsigned NumReq = 1
) (
  input logic                         clk_i,
  input logic                         rst_ni,
  input logic [NumReq-1:0]            req_i,
  input logic [NumReq-1:0]            enable_i,
  input logic [NumReq-1:0][QLenW-1:0] qlen_i,
  input logic [NumReq-1:0][QLenW-1:0] kmin_i,
  input logic [NumReq-1:0][QLenW-1:0] kmax_i,
  input logic [NumReq-1:0]            mark_i,
  input logic [NumReq-1:0]            drop_i
);

  logic [NumReq-1:0] below, between, above;
  always_comb begin
    for (int unsigned r = 0; r < NumReq; r++) begin
      below[r]   = req_i[r] && enable_i[r] && qlen_i[r] < kmin_i[r];
      above[r]   = req_i[r] && enable_i[r] && qlen_i[r] >= kmax_i[r];
      between[r] = req_i[r] && enable_i[r] && !(qlen_i[r] < kmin_i[r]) && !(qlen_i[r] >= kmax_i[r]);
    end
  end

  `SF_COVER(c_wred_below_kmin, below != '0)
  `SF_COVER(c_wred_between, between != '0)
  `SF_COVER(c_wred_above_kmax, above != '0)
  `SF_COVER(c_wred_mark, (req_i & mark_i) != '0)
  `SF_COVER(c_wred_drop, (req_i & drop_i) != '0)

endmodule : wred_ecn_fcov

bind wred_ecn wred_ecn_fcov #(
  .QLenW (QLenW),
  .NumReq(NumReq)
) u_fcov (
  .clk_i,
  .rst_ni,
  .req_i,
  .enable_i,
  .qlen_i,
  .kmin_i,
  .kmax_i,
  .mark_i(mark_o),
  .drop_i(drop_o)
);
