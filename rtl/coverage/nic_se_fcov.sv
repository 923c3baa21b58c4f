// Functional cover points of SE (nic_se): every verdict on a received
// notification (nic_pkg::se_verdict_e), and both ways a NACK is sent (engine
// disabled, request DAMQ full with no active match). Bound into nic_se by
// the coverage tree only (docs/coverage.md).

`include "syncfab_assert.svh"

module nic_se_fcov
  import nic_pkg::*;
(
  input logic        clk_i,
  input logic        rst_ni,
  input logic        rx_fire_i,  // SE takes a header
  input se_verdict_e verdict_i,  // its verdict
  input logic        enable_i    // CTRL.ENABLE
);

  `SF_COVER(c_se_verdict_match, rx_fire_i && verdict_i == SE_MATCH)
  `SF_COVER(c_se_verdict_park, rx_fire_i && verdict_i == SE_PARK)
  `SF_COVER(c_se_verdict_dup, rx_fire_i && verdict_i == SE_DUP)
  `SF_COVER(c_se_verdict_drop, rx_fire_i && verdict_i == SE_DROP)
  `SF_COVER(c_se_verdict_nack, rx_fire_i && verdict_i == SE_NACK)
  `SF_COVER(c_se_verdict_stray, rx_fire_i && verdict_i == SE_STRAY)
  `SF_COVER(c_se_nack_disabled, rx_fire_i && verdict_i == SE_NACK && !enable_i)
  `SF_COVER(c_se_nack_damq_full, rx_fire_i && verdict_i == SE_NACK && enable_i)

endmodule : nic_se_fcov

bind nic_se nic_se_fcov u_fcov (
  .clk_i,
  .rst_ni,
  .rx_fire_i(rx_fire),
  .verdict_i(verdict),
  .enable_i
);
