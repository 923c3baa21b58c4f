// Functional cover points of PFC generation (pfc_tx): a priority enters XOFF
// and leaves it (XON), a held pause falls due for its refresh, and pause and
// resume frames leave. Bound into pfc_tx by the coverage tree only
// (docs/coverage.md).

`include "syncfab_assert.svh"

module pfc_tx_fcov #(
  parameter int unsigned NumPrio = 8
) (
  input logic               clk_i,
  input logic               rst_ni,
  input logic [NumPrio-1:0] xoff_q_i,    // paused now
  input logic [NumPrio-1:0] xoff_d_i,    // paused next cycle
  input logic [NumPrio-1:0] due_i,       // a held pause's refresh is due
  input logic [NumPrio-1:0] xoff_tx_i,   // a frame with quanta > 0 leaves
  input logic [NumPrio-1:0] xon_tx_i     // a frame with quanta 0 leaves
);

  `SF_COVER(c_pfc_xoff, (xoff_d_i & ~xoff_q_i) != '0)
  `SF_COVER(c_pfc_xon, (~xoff_d_i & xoff_q_i) != '0)
  `SF_COVER(c_pfc_refresh, due_i != '0)
  `SF_COVER(c_pfc_pause_frame_tx, xoff_tx_i != '0)
  `SF_COVER(c_pfc_resume_frame_tx, xon_tx_i != '0)

endmodule : pfc_tx_fcov

bind pfc_tx pfc_tx_fcov #(
  .NumPrio(NumPrio)
) u_fcov (
  .clk_i,
  .rst_ni,
  .xoff_q_i (xoff_q),
  .xoff_d_i (xoff_d),
  .due_i    (due),
  .xoff_tx_i(evt_xoff_tx_o),
  .xon_tx_i (evt_xon_tx_o)
);
