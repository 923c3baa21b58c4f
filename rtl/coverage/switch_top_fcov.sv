// Functional cover points of the whole switch (switch_top): the fan-out of
// multicast packets (one copy, some ports, every other port). Bound into
// switch_top by the coverage tree only (docs/coverage.md).

`include "syncfab_assert.svh"

module switch_top_fcov
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned NumPorts = 8
) (
  input logic                 clk_i,
  input logic                 rst_ni,
  input logic                 eng_active_i,  // the enqueue engine decides a packet
  input logic [LID_WIDTH-1:0] dst_lid_i,     // its destination
  input logic [NumPorts-1:0]  eng_mask_i     // the outputs that get a copy
);

  logic mc;
  int unsigned copies;
  assign mc = eng_active_i && dst_lid_i >= MLID_BASE;
  assign copies = $countones(eng_mask_i);

  `SF_COVER(c_mc_fanout_one, mc && copies == 1)
  `SF_COVER(c_mc_fanout_some, mc && copies > 1 && copies < NumPorts - 1)
  `SF_COVER(c_mc_fanout_all, mc && copies == NumPorts - 1)

endmodule : switch_top_fcov

bind switch_top switch_top_fcov #(
  .NumPorts(NumPorts)
) u_fcov (
  .clk_i,
  .rst_ni,
  .eng_active_i(eng_active),
  .dst_lid_i   (eng_hdr.dst_lid),
  .eng_mask_i  (eng_mask)
);
