// The data path's receive side (docs/nic/dcqcn.md §3 "Receive side", §5
// "CNP"): DATA packets, flit by flit, judged at their last flit, and
// one-flit CNPs matched against the flow table.
//
// data_valid_i: a flit of a DATA packet is taken this cycle (data_first_i:
// its header, rx_data_i read as pkt_hdr; rx_last_i: its last flit). At the
// last flit: a packet whose flit count equals its len_flits and whose
// dst_lid is NODE_LID counts (evt_rx_o, its len_flits - 1 payload flits in
// evt_rx_flits_o), and if CE-marked also evt_ce_o, and goes to the NP
// (np_ce_o when np_enable_i); any other counts evt_drop_o.
//
// cnp_valid_i: a one-flit CNP (rx_data_i its header) is taken this cycle.
// With dst_lid NODE_LID and len_flits 1 it matches the RUNNING entry whose
// destination is its src_lid and whose label is its flow_label (cnp_o,
// cnp_idx_o); otherwise, or with no such entry, evt_cnp_unknown_o.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_dcqcn_rx
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  localparam int unsigned FlowIdxW = (NUM_FLOWS > 1) ? $clog2(NUM_FLOWS) : 1,
  localparam int unsigned FlitsW   = PKT_HDR_LEN_FLITS_W,
  localparam int unsigned LabelW   = PKT_HDR_FLOW_LABEL_W,
  localparam int unsigned LidW     = PKT_HDR_DST_LID_W
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,
  input  logic [LidW-1:0]                  own_lid_i,
  input  logic                             np_enable_i,

  input  flit_t                            rx_data_i,
  input  logic                             rx_last_i,
  input  logic                             data_valid_i,
  input  logic                             data_first_i,
  input  logic                             cnp_valid_i,

  // Flow table
  input  logic [NUM_FLOWS-1:0]             running_i,
  input  logic [NUM_FLOWS-1:0][LidW-1:0]   dst_i,
  input  logic [NUM_FLOWS-1:0][LabelW-1:0] label_i,

  output logic                             evt_rx_o,
  output logic [FlitsW-1:0]                evt_rx_flits_o,
  output logic                             evt_ce_o,
  output logic                             evt_drop_o,
  output logic                             np_ce_o,
  output logic [LidW-1:0]                  np_src_o,
  output logic [LabelW-1:0]                np_label_o,

  output logic                             cnp_o,
  output logic [FlowIdxW-1:0]              cnp_idx_o,
  output logic                             evt_cnp_unknown_o
);

  pkt_hdr_t rx_hdr;
  assign rx_hdr = pkt_hdr_t'(rx_data_i);
  // The fields neither verdict reads (a payload flit has no header).
  logic unused_hdr;
  assign unused_hdr = ^{rx_hdr.round, rx_hdr.epoch, rx_hdr.ctx, rx_hdr.member, rx_hdr.rsvd_62,
                        rx_hdr.ask, rx_hdr.answer, rx_hdr.dscp, rx_hdr.prio};

  // ---- DATA -----------------------------------------------------------------
  // The header's fields the verdict needs, and the flits taken so far
  // (saturating one past the largest len_flits).
  logic [FlitsW-1:0] len_q;
  logic [LidW-1:0] dst_q, src_q;
  logic [LabelW-1:0] label_q;
  logic ce_q;
  logic [FlitsW:0] count_q;

  logic [FlitsW-1:0] len;
  logic [LidW-1:0] dst, src;
  logic [LabelW-1:0] label;
  logic ce;
  logic [FlitsW:0] count;  // flits of the packet including this one

  assign len   = data_first_i ? rx_hdr.len_flits : len_q;
  assign dst   = data_first_i ? rx_hdr.dst_lid : dst_q;
  assign src   = data_first_i ? rx_hdr.src_lid : src_q;
  assign label = data_first_i ? rx_hdr.flow_label : label_q;
  assign ce    = data_first_i ? rx_hdr.ecn == EcnCe : ce_q;
  assign count = data_first_i ? (FlitsW + 1)'(1) :
                 (count_q == '1) ? count_q : count_q + (FlitsW + 1)'(1);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      len_q   <= '0;
      dst_q   <= '0;
      src_q   <= '0;
      label_q <= '0;
      ce_q    <= 1'b0;
      count_q <= '0;
    end else if (data_valid_i) begin
      len_q   <= len;
      dst_q   <= dst;
      src_q   <= src;
      label_q <= label;
      ce_q    <= ce;
      count_q <= count;
    end
  end

  logic data_end, data_ok;
  assign data_end       = data_valid_i && rx_last_i;
  assign data_ok        = count == {1'b0, len} && dst == own_lid_i;
  assign evt_rx_o       = data_end && data_ok;
  assign evt_rx_flits_o = len - FlitsW'(1);
  assign evt_ce_o       = evt_rx_o && ce;
  assign evt_drop_o     = data_end && !data_ok;
  assign np_ce_o        = evt_ce_o && np_enable_i;
  assign np_src_o       = src;
  assign np_label_o     = label;

  // ---- CNP ------------------------------------------------------------------
  logic [NUM_FLOWS-1:0] match;
  always_comb begin
    for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
      match[f] = running_i[f] && dst_i[f] == rx_hdr.src_lid && label_i[f] == rx_hdr.flow_label;
    end
  end

  logic cnp_ok;
  assign cnp_ok = cnp_valid_i && rx_hdr.dst_lid == own_lid_i &&
                  rx_hdr.len_flits == FlitsW'(1);
  assign cnp_o  = cnp_ok && match != '0;
  always_comb begin
    cnp_idx_o = '0;
    for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
      if (match[f]) begin
        cnp_idx_o = FlowIdxW'(f);
      end
    end
  end
  assign evt_cnp_unknown_o = cnp_valid_i && !cnp_o;

  // verilog_format: off
  // DUP_FLOW: a CNP matches one RUNNING entry at most.
  `NIC_ASSERT_ONEHOT0(a_cnp_one_match, match)
  // A flit is a DATA flit or a one-flit CNP, never both.
  `NIC_ASSERT(a_rx_one_kind, !(data_valid_i && cnp_valid_i))
  `NIC_ASSERT_IMP(a_cnp_one_flit, cnp_valid_i, rx_last_i && rx_hdr.pkt_type == PktCnp)
  `NIC_ASSERT_IMP(a_data_header, data_valid_i && data_first_i, rx_hdr.pkt_type == PktData)
  // verilog_format: on

endmodule
