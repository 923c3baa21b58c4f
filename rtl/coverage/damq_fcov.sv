// Functional cover points of a DAMQ (rtl/common/damq.sv): empty, almost
// full, full, and an enqueue refused for want of a slot. Bound into every
// damq of the NIC (SE's request DAMQ, TE's response DAMQ) by the coverage
// tree only (docs/coverage.md); the instance path tells them apart.

`include "syncfab_assert.svh"

module damq_fcov #(
  parameter int unsigned NumSlots = 16,
  localparam int unsigned CntW = $clog2(NumSlots + 1)
) (
  input logic            clk_i,
  input logic            rst_ni,
  input logic [CntW-1:0] free_count_i,
  input logic            full_i,
  input logic            almost_full_i,
  input logic            enq_valid_i,
  input logic            enq_ready_i
);

  `SF_COVER(c_damq_empty, 32'(free_count_i) == NumSlots)
  `SF_COVER(c_damq_almost_full, almost_full_i && !full_i)
  `SF_COVER(c_damq_full, full_i)
  `SF_COVER(c_damq_enq_refused, enq_valid_i && !enq_ready_i)

endmodule : damq_fcov

bind damq damq_fcov #(
  .NumSlots(NumSlots)
) u_fcov (
  .clk_i,
  .rst_ni,
  .free_count_i (free_count_o),
  .full_i       (full_o),
  .almost_full_i(almost_full_o),
  .enq_valid_i,
  .enq_ready_i  (enq_ready_o)
);
