// Test-only probe: casts a raw two-flit PFC frame to syncfab_fmt_pkg::pfc_frame_t
// and brings every field out; quanta[prio_i] is selected by an index input.
module fmt_pfc_frame_probe
  import syncfab_fmt_pkg::*;
(
  input  logic [PFC_FRAME_BITS-1:0]   raw_i,
  input  logic [$clog2(NUM_PRIO)-1:0] prio_i,
  output logic [7:0]                  pkt_type_o,
  output logic [7:0]                  len_flits_o,
  output logic [NUM_PRIO-1:0]         class_enable_o,
  output logic [15:0]                 quanta_o,
  // {PFC, CNP, NACK, ACK, NOTIFY, DATA}
  output logic [5:0]                  pkt_type_is_o
);
  pfc_frame_t frame;
  assign frame = pfc_frame_t'(raw_i);

  assign pkt_type_o     = frame.pkt_type;
  assign len_flits_o    = frame.len_flits;
  assign class_enable_o = frame.class_enable;
  assign quanta_o       = frame.quanta[prio_i];

  assign pkt_type_is_o = {frame.pkt_type == PktPfc,  frame.pkt_type == PktCnp,
                          frame.pkt_type == PktNack, frame.pkt_type == PktAck,
                          frame.pkt_type == PktNotify, frame.pkt_type == PktData};

  logic unused_frame;
  assign unused_frame = ^frame;
endmodule
