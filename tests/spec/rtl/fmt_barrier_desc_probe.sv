// Test-only probe: casts a raw barrier descriptor to syncfab_fmt_pkg::barrier_desc_t
// and brings every header field out; the schedule is read one slot at a time,
// round[round_i].dst_lid[slot_i] and .src_lid[slot_i], through the nested
// barrier_round_t records (the path the NIC's TE/SE take).
module fmt_barrier_desc_probe
  import syncfab_fmt_pkg::*;
(
  input  logic [BARRIER_DESC_BITS-1:0]  raw_i,
  input  logic [$clog2(MAX_ROUNDS)-1:0] round_i,
  input  logic [$clog2(K_MAX)-1:0]      slot_i,
  output logic [7:0]                    opcode_o,
  output logic [7:0]                    version_o,
  output logic [CTX_WIDTH-1:0]          ctx_o,
  output logic                          flag_cmpl_write_o,
  output logic                          flag_cq_entry_o,
  output logic                          flag_irq_o,
  output logic [EPOCH_WIDTH-1:0]        epoch_o,
  output logic [7:0]                    num_rounds_o,
  output logic [7:0]                    fanout_k_o,
  output logic [63:0]                   cmpl_addr_o,
  output logic [63:0]                   cmpl_value_o,
  output logic [LID_WIDTH-1:0]          mlid_o,
  output logic [LID_WIDTH-1:0]          root_lid_o,
  output logic [15:0]                   member_o,
  output logic [15:0]                   members_o,
  output logic [LID_WIDTH-1:0]          dst_lid_o,
  output logic [LID_WIDTH-1:0]          src_lid_o,
  // {BARRIER}
  output logic                          opcode_is_o
);
  barrier_desc_t  desc;
  barrier_round_t rnd;
  assign desc = barrier_desc_t'(raw_i);
  // round_i can exceed MAX_ROUNDS - 1 ($clog2 rounds up); the test never drives that.
  assign rnd  = desc.round[round_i];

  assign opcode_o          = desc.opcode;
  assign version_o         = desc.version;
  assign ctx_o             = desc.ctx;
  assign flag_cmpl_write_o = desc.flag_cmpl_write;
  assign flag_cq_entry_o   = desc.flag_cq_entry;
  assign flag_irq_o        = desc.flag_irq;
  assign epoch_o           = desc.epoch;
  assign num_rounds_o      = desc.num_rounds;
  assign fanout_k_o        = desc.fanout_k;
  assign cmpl_addr_o       = desc.cmpl_addr;
  assign cmpl_value_o      = desc.cmpl_value;
  assign mlid_o            = desc.mlid;
  assign root_lid_o        = desc.root_lid;
  assign member_o          = desc.member;
  assign members_o         = desc.members;
  assign dst_lid_o         = rnd.dst_lid[slot_i];
  assign src_lid_o         = rnd.src_lid[slot_i];

  assign opcode_is_o = desc.opcode == OpcBarrier;

  logic unused_desc;
  assign unused_desc = ^desc;
endmodule
