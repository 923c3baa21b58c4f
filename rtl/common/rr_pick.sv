// Round-robin pick: the first set bit of mask_i at or after start_i, wrapping
// past the top (idx_o = 0 and any_o = 0 for an empty mask).
//
// Branch-free: the bits at or after start are kept if any is set, else the
// whole mask; the lowest set bit of that is isolated (x & -x) and its index
// is the number of ones below it. The RTL simulates as a handful of word
// operations instead of a loop with a modulo per candidate, which matters
// where it sits in the input-combinational path of a large top (the
// switch's egress candidates, its enqueue engine and output matching).
// Combinational, no state; tests/rtl/common checks it against a cyclic scan
// for every mask and start at several widths.

module rr_pick #(
  parameter int unsigned N = 8,
  localparam int unsigned IdxW = (N > 1) ? $clog2(N) : 1
) (
  input  logic [N-1:0]    mask_i,
  input  logic [IdxW-1:0] start_i,
  output logic            any_o,
  output logic [IdxW-1:0] idx_o
);

  logic [N-1:0] upper, sel, lowest;

  assign upper = mask_i & ~((N'(1) << start_i) - N'(1));
  assign sel = (upper != '0) ? upper : mask_i;
  assign lowest = sel & (~sel + N'(1));
  assign any_o = mask_i != '0;
  assign idx_o = any_o ? IdxW'($countones(lowest - N'(1))) : '0;

endmodule
