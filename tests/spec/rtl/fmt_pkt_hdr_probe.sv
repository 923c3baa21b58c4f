// Test-only probe: casts a raw header flit to syncfab_fmt_pkg::pkt_hdr_t and
// brings every field out on its own port, so the golden-vector test can check
// that the generated packed struct decodes the bytes the way the spec says.
// The *_is_o vectors compare against the package's enum literals (bit order
// below, written by hand) so the SV enum values are checked by name as well.
module fmt_pkt_hdr_probe
  import syncfab_fmt_pkg::*;
(
  input  logic [PKT_HDR_BITS-1:0] raw_i,
  output logic [7:0]              pkt_type_o,
  output logic [7:0]              len_flits_o,
  output logic [LID_WIDTH-1:0]    dst_lid_o,
  output logic [LID_WIDTH-1:0]    src_lid_o,
  output logic [2:0]              prio_o,
  output logic [1:0]              ecn_o,
  output logic [5:0]              dscp_o,
  output logic                    answer_o,
  output logic [1:0]              ask_o,
  output logic [19:0]             flow_label_o,
  output logic [CTX_WIDTH-1:0]    ctx_o,
  output logic [EPOCH_WIDTH-1:0]  epoch_o,
  output logic [7:0]              round_o,
  output logic [11:0]             member_o,
  // {PFC, CNP, NACK, ACK, NOTIFY, DATA}
  output logic [5:0]              pkt_type_is_o,
  // {CE, ECT0, ECT1, NOT_ECT}
  output logic [3:0]              ecn_is_o
);
  pkt_hdr_t hdr;
  assign hdr = pkt_hdr_t'(raw_i);

  assign pkt_type_o   = hdr.pkt_type;
  assign len_flits_o  = hdr.len_flits;
  assign dst_lid_o    = hdr.dst_lid;
  assign src_lid_o    = hdr.src_lid;
  assign prio_o       = hdr.prio;
  assign ecn_o        = hdr.ecn;
  assign dscp_o       = hdr.dscp;
  assign answer_o     = hdr.answer;
  assign ask_o        = hdr.ask;
  assign flow_label_o = hdr.flow_label;
  assign ctx_o        = hdr.ctx;
  assign epoch_o      = hdr.epoch;
  assign round_o      = hdr.round;
  assign member_o     = hdr.member;

  assign pkt_type_is_o = {hdr.pkt_type == PktPfc,  hdr.pkt_type == PktCnp,
                          hdr.pkt_type == PktNack, hdr.pkt_type == PktAck,
                          hdr.pkt_type == PktNotify, hdr.pkt_type == PktData};
  assign ecn_is_o = {hdr.ecn == EcnCe, hdr.ecn == EcnEct0, hdr.ecn == EcnEct1,
                     hdr.ecn == EcnNotEct};

  // The reserved gaps are deliberately not brought out.
  logic unused_hdr;
  assign unused_hdr = ^hdr;
endmodule
