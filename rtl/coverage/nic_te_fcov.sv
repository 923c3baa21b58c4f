// Functional cover points of TE (nic_te): the NACK and retry paths of a
// notification (NACK received, re-sent after the delay, retry limit reached)
// and the responses TE drops. Bound into nic_te by the coverage tree only
// (docs/coverage.md).

`include "syncfab_assert.svh"

module nic_te_fcov (
  input logic clk_i,
  input logic rst_ni,
  input logic evt_ack_i,     // an ACK matched a sent notification
  input logic evt_nack_i,    // a NACK matched one
  input logic evt_retry_i,   // a NACKed notification is sent again
  input logic evt_error_i,   // a context gave up: RETRY_LIMIT
  input logic evt_drop_i,    // a response matched nothing outstanding
  input logic evt_stray_i    // a response that is not for this node
);

  `SF_COVER(c_te_ack_recv, evt_ack_i)
  `SF_COVER(c_te_nack_recv, evt_nack_i)
  `SF_COVER(c_te_retry_sent, evt_retry_i)
  `SF_COVER(c_te_retry_limit, evt_error_i)
  `SF_COVER(c_te_resp_drop, evt_drop_i)
  `SF_COVER(c_te_resp_stray, evt_stray_i)

endmodule : nic_te_fcov

bind nic_te nic_te_fcov u_fcov (
  .clk_i,
  .rst_ni,
  .evt_ack_i  (evt_ack_recv_o),
  .evt_nack_i (evt_nack_recv_o),
  .evt_retry_i(evt_retry_o),
  .evt_error_i(evt_error_o),
  .evt_drop_i (evt_drop_o),
  .evt_stray_i(evt_stray_o)
);
