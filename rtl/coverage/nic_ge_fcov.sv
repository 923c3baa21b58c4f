// Functional cover points of the group engine (nic_ge): the retry path of a
// group barrier member (ARRIVE sent again after GROUP_TIMEOUT), the root's
// release, and the packets it counts as duplicates or drops. Bound into
// nic_ge by the coverage tree only (docs/coverage.md).

`include "syncfab_assert.svh"

module nic_ge_fcov (
  input logic clk_i,
  input logic rst_ni,
  input logic evt_arrive_sent_i,
  input logic evt_arrive_recv_i,
  input logic evt_release_sent_i,
  input logic evt_release_recv_i,
  input logic evt_retry_i,
  input logic evt_dup_i,
  input logic evt_drop_i
);

  `SF_COVER(c_ge_arrive_sent, evt_arrive_sent_i)
  `SF_COVER(c_ge_arrive_recv, evt_arrive_recv_i)
  `SF_COVER(c_ge_release_sent, evt_release_sent_i)
  `SF_COVER(c_ge_release_recv, evt_release_recv_i)
  `SF_COVER(c_ge_retry_sent, evt_retry_i)
  `SF_COVER(c_ge_dup, evt_dup_i)
  `SF_COVER(c_ge_drop, evt_drop_i)

endmodule : nic_ge_fcov

bind nic_ge nic_ge_fcov u_fcov (
  .clk_i,
  .rst_ni,
  .evt_arrive_sent_i (evt_arrive_sent_o),
  .evt_arrive_recv_i (evt_arrive_recv_o),
  .evt_release_sent_i(evt_release_sent_o),
  .evt_release_recv_i(evt_release_recv_o),
  .evt_retry_i       (evt_group_retry_o),
  .evt_dup_i         (evt_dup_o),
  .evt_drop_i        (evt_drop_o)
);
