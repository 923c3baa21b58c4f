// Functional cover points of the port groups (switch_tables,
// docs/switch-ecmp.md): a lookup an input uses answered by a group's member,
// one that skips a member out of service (its PORT_UP bit 0), and
// GROUP_SKIPS counting it. The per-input decisions are read from
// switch_tables' own generate blocks (gen_lookup[i]). Bound into
// switch_tables by the coverage tree only (docs/coverage.md).

`include "syncfab_assert.svh"

module switch_tables_fcov
  import switch_pkg::*;
#(
  parameter int unsigned NumPorts = 8
) (
  input logic                clk_i,
  input logic                rst_ni,
  input logic [NumPorts-1:0] lk_valid_i,
  input logic [NumPorts-1:0] skip_ev_i,
  input cnt_value_t          group_skips_i
);

  logic [NumPorts-1:0] group_hit;
  for (genvar i = 0; i < NumPorts; i++) begin : gen_in
    assign group_hit[i] = lk_valid_i[i] && switch_tables.gen_lookup[i].lft_hit &&
        switch_tables.gen_lookup[i].lft.group && switch_tables.gen_lookup[i].rsp.hit;
  end

  cnt_value_t skips_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) skips_q <= '0;
    else skips_q <= group_skips_i;
  end

  `SF_COVER(c_group_hit, group_hit != '0)
  `SF_COVER(c_group_member_skipped, skip_ev_i != '0)
  `SF_COVER(c_group_skips_counted, group_skips_i > skips_q)

endmodule : switch_tables_fcov

bind switch_tables switch_tables_fcov #(
  .NumPorts(NumPorts)
) u_fcov (
  .clk_i,
  .rst_ni,
  .lk_valid_i,
  .skip_ev_i    (skip_ev),
  .group_skips_i(group_skips_o)
);
