// Functional cover points of the dynamic ECN law (ecn_dyn,
// docs/switch-ecn-dynamic.md sections 2 and 4), on any queue: a window end
// that raises the level (up), lowers it (down), keeps it (hold), keeps it
// only because a pause was received in the window (paused hold), one with a
// threshold shift above 0, and the law switched on for a queue while the
// window counter runs for others (mid-window). The per-queue decisions are
// read from ecn_dyn's own generate blocks (gen_out[o].gen_q[q]), so these
// points observe the law the RTL runs, not a copy of it. Bound into ecn_dyn
// by the coverage tree only (docs/coverage.md).

`include "syncfab_assert.svh"

module ecn_dyn_fcov #(
  parameter int unsigned NumOut  = 8,
  parameter int unsigned NumPrio = 8
) (
  input logic               clk_i,
  input logic               rst_ni,
  input logic [NumPrio-1:0] en_i,
  input logic               win_end_i
);

  logic [NumOut-1:0][NumPrio-1:0] up, down, hold, paused_hold, shift;
  for (genvar o = 0; o < NumOut; o++) begin : gen_out
    for (genvar q = 0; q < NumPrio; q++) begin : gen_q
      logic on_end;
      assign on_end = win_end_i && en_i[q];
      assign up[o][q] = on_end && ecn_dyn.gen_out[o].gen_q[q].up;
      assign down[o][q] = on_end && ecn_dyn.gen_out[o].gen_q[q].down;
      assign hold[o][q] = on_end && !ecn_dyn.gen_out[o].gen_q[q].up &&
          !ecn_dyn.gen_out[o].gen_q[q].down;
      // Down but for the pause: the queue ran empty with inputs sending.
      assign paused_hold[o][q] = on_end && !ecn_dyn.gen_out[o].gen_q[q].up &&
          ecn_dyn.gen_out[o].gen_q[q].empty && ecn_dyn.gen_out[o].gen_q[q].n != '0 &&
          ecn_dyn.gen_out[o].gen_q[q].paused;
      assign shift[o][q] = on_end && ecn_dyn.gen_out[o].gen_q[q].sh_new != '0;
    end
  end

  // A queue's law switched on while another's keeps the counter running.
  logic [NumPrio-1:0] en_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) en_q <= '0;
    else en_q <= en_i;
  end

  `SF_COVER(c_ecn_win_end_up, up != '0)
  `SF_COVER(c_ecn_win_end_down, down != '0)
  `SF_COVER(c_ecn_win_end_hold, hold != '0)
  `SF_COVER(c_ecn_win_end_paused_hold, paused_hold != '0)
  `SF_COVER(c_ecn_shift, shift != '0)
  `SF_COVER(c_ecn_on_mid_window, (en_i & ~en_q) != '0 && (en_q & en_i) != '0)

endmodule : ecn_dyn_fcov

bind ecn_dyn ecn_dyn_fcov #(
  .NumOut (NumOut),
  .NumPrio(NumPrio)
) u_fcov (
  .clk_i,
  .rst_ni,
  .en_i,
  .win_end_i(win_end)
);
