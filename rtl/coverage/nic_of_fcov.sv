// Functional cover points of OF (nic_of): the classes of every descriptor
// field the engine accepts, and where descriptors come from. Bound into
// nic_of by the coverage tree only (rtl/coverage/nic_top.cover.f, see
// docs/coverage.md): the design files stay as they are and the models the
// benches time carry none of it.

`include "syncfab_assert.svh"

module nic_of_fcov
  import syncfab_fmt_pkg::*;
(
  input logic          clk_i,
  input logic          rst_ni,
  input logic          act_fire_i,   // a descriptor is handed to SE/TE or the group engine
  input barrier_desc_t desc_i,       // the buffered descriptor
  input logic          start_hdq_i,  // a fetch starts from the HDQ
  input logic          start_sdq_i   // ... from the SDQ in host memory
);

  logic barrier, mcast;
  assign barrier = act_fire_i && desc_i.opcode == OpcBarrier;
  assign mcast   = act_fire_i && desc_i.opcode == OpcMcastBarrier;

  // verilog_format: off
  `SF_COVER(c_desc_opcode_barrier, barrier)
  `SF_COVER(c_desc_opcode_mcast_barrier, mcast)
  `SF_COVER(c_desc_opcode_comb_barrier, act_fire_i && desc_i.opcode == OpcCombBarrier)
  `SF_COVER(c_desc_mcast_root, mcast && desc_i.member == '0)
  `SF_COVER(c_desc_mcast_member, mcast && desc_i.member != '0)
  `SF_COVER(c_desc_flag_cmpl_write, act_fire_i && desc_i.flag_cmpl_write)
  `SF_COVER(c_desc_flag_cq_entry, act_fire_i && desc_i.flag_cq_entry)
  `SF_COVER(c_desc_flag_irq, act_fire_i && desc_i.flag_irq)
  `SF_COVER(c_desc_no_flags, act_fire_i &&
                             !(desc_i.flag_cmpl_write || desc_i.flag_cq_entry || desc_i.flag_irq))
  `SF_COVER(c_desc_rounds_zero, barrier && desc_i.num_rounds == '0)
  `SF_COVER(c_desc_rounds_some, barrier && desc_i.num_rounds != '0 &&
                                32'(desc_i.num_rounds) < MAX_ROUNDS)
  `SF_COVER(c_desc_rounds_max, barrier && 32'(desc_i.num_rounds) == MAX_ROUNDS)
  `SF_COVER(c_desc_fanout_one, barrier && 32'(desc_i.fanout_k) == 1)
  `SF_COVER(c_desc_fanout_max, barrier && 32'(desc_i.fanout_k) == K_MAX)
  // verilog_format: on
  `SF_COVER(c_desc_from_hdq, start_hdq_i)
  `SF_COVER(c_desc_from_sdq, start_sdq_i)

  logic unused_desc;
  assign unused_desc = ^desc_i;

endmodule : nic_of_fcov

bind nic_of nic_of_fcov u_fcov (
  .clk_i,
  .rst_ni,
  .act_fire_i (act_fire_o),
  .desc_i     (desc),
  .start_hdq_i(start_hdq),
  .start_sdq_i(start_sdq)
);
