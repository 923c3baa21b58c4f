// Functional cover points of PFC reception (pfc_rx): a pause and a resume
// received, and a pause the watchdog makes the queue ignore. Bound into every
// pfc_rx (the switch's ports, the NIC's link) by the coverage tree only
// (docs/coverage.md).

`include "syncfab_assert.svh"

module pfc_rx_fcov #(
  parameter int unsigned NumPrio = 8
) (
  input logic               clk_i,
  input logic               rst_ni,
  input logic [NumPrio-1:0] xoff_rx_i,
  input logic [NumPrio-1:0] xon_rx_i,
  input logic [NumPrio-1:0] xoff_i,
  input logic [NumPrio-1:0] ignore_i
);

  `SF_COVER(c_pfc_rx_pause, xoff_rx_i != '0)
  `SF_COVER(c_pfc_rx_resume, xon_rx_i != '0)
  `SF_COVER(c_pfc_rx_ignored, (xoff_i & ignore_i) != '0)

endmodule : pfc_rx_fcov

bind pfc_rx pfc_rx_fcov #(
  .NumPrio(NumPrio)
) u_fcov (
  .clk_i,
  .rst_ni,
  .xoff_rx_i(evt_xoff_rx_o),
  .xon_rx_i (evt_xon_rx_o),
  .xoff_i   (xoff_o),
  .ignore_i
);
