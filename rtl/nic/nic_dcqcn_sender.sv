// The bulk sender's transmit side (docs/nic/dcqcn.md §3, §6): chooses the
// flow of the next DATA packet and puts the packet on its stream to the
// NIC's network arbiter.
//
// Choice (§6, source 3): when the NIC's arbiter lets DATA start a packet
// (allow_i: nothing held on tx, no packet between its flits, no CNP or
// barrier packet chosen) and no DATA packet is in progress, the first entry
// in round-robin order after the last one granted (entry 0 first after
// reset) that is RUNNING, has packets left, whose priority is not paused and
// whose token bucket allows it (tx_ok_i) is granted: grant_o for the flow
// table (FLOW_SENT), the reaction point (credit, byte count) and the
// counters. Its header (§3) is shown on tx in the grant's cycle and stays,
// unchanged, until taken; the payload flits follow back to back (§3's
// pattern), whatever the pauses (a pause stops first flits only). The
// packet's fields are kept at the grant, so a STOP, or a STOP and START of
// the entry, while it is on the link changes nothing of it.
//
// done_o: the last flit of a flow's last packet leaves and the entry is
// still that run's (RUNNING, not started again since the grant).

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_dcqcn_sender
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  localparam int unsigned FlowIdxW = (NUM_FLOWS > 1) ? $clog2(NUM_FLOWS) : 1,
  localparam int unsigned FlitsW   = PKT_HDR_LEN_FLITS_W,
  localparam int unsigned LabelW   = PKT_HDR_FLOW_LABEL_W,
  localparam int unsigned PrioW    = PKT_HDR_PRIO_W,
  localparam int unsigned LidW     = PKT_HDR_DST_LID_W
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  input  logic [LidW-1:0]                     own_lid_i,
  input  prio_mask_t                          paused_i,   // PFC stop per priority

  // Flow table and reaction point
  input  logic [NUM_FLOWS-1:0]                running_i,
  input  logic [NUM_FLOWS-1:0][LidW-1:0]      dst_i,
  input  logic [NUM_FLOWS-1:0][FlitsW-1:0]    payload_i,
  input  logic [NUM_FLOWS-1:0][PrioW-1:0]     prio_i,
  input  logic [NUM_FLOWS-1:0]                ect_i,
  input  logic [NUM_FLOWS-1:0][LabelW-1:0]    label_i,
  input  logic [NUM_FLOWS-1:0][31:0]          pkts_i,
  input  logic [NUM_FLOWS-1:0][31:0]          sent_i,
  input  logic [NUM_FLOWS-1:0]                tx_ok_i,
  input  logic                                start_i,      // START of entry start_idx_i
  input  logic [FlowIdxW-1:0]                 start_idx_i,

  // The NIC's network arbiter
  input  logic                                allow_i,   // DATA may start a packet
  output logic                                busy_o,    // a DATA packet is on the link
  output logic                                tx_valid_o,
  input  logic                                tx_ready_i,
  output flit_t                               tx_data_o,
  output logic                                tx_last_o,

  // Events
  output logic                                grant_o,
  output logic [FlowIdxW-1:0]                 grant_idx_o,
  output logic [FlitsW-1:0]                   grant_flits_o,
  output logic                                done_o,
  output logic [FlowIdxW-1:0]                 done_idx_o
);

  typedef enum logic [1:0] {
    SndIdle,
    SndHdr,  // header shown, not taken
    SndPay   // header taken, payload flits leaving
  } snd_state_e;

  snd_state_e state_q;
  pkt_hdr_t hdr_q;
  logic [FlowIdxW-1:0] flow_q, last_q;
  logic [31:0] seq_q;
  logic [FlitsW-1:0] j_q;  // payload flit on tx (1 .. payload)
  logic last_pkt_q;  // the flow's last packet, the entry not started again since

  // ---- choice ---------------------------------------------------------------
  logic [NUM_FLOWS-1:0] eligible;
  logic pick_valid;
  logic [FlowIdxW-1:0] pick;

  always_comb begin
    for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
      eligible[f] = running_i[f] && sent_i[f] < pkts_i[f] && !paused_i[prio_i[f]] && tx_ok_i[f];
    end
  end

  // Round robin from the entry after the last one granted.
  always_comb begin
    pick_valid = 1'b0;
    pick = '0;
    for (int unsigned k = NUM_FLOWS; k >= 1; k--) begin
      logic [FlowIdxW-1:0] f;
      f = FlowIdxW'((32'(last_q) + k) % NUM_FLOWS);
      if (eligible[f]) begin
        pick_valid = 1'b1;
        pick = f;
      end
    end
  end

  assign grant_o       = allow_i && state_q == SndIdle && pick_valid;
  assign grant_idx_o   = pick;
  assign grant_flits_o = payload_i[pick] + FlitsW'(1);

  // The header of packet FLOW_SENT of the chosen flow (§3).
  pkt_hdr_t hdr_new;
  always_comb begin
    hdr_new            = '0;
    hdr_new.pkt_type   = PktData;
    hdr_new.len_flits  = payload_i[pick] + FlitsW'(1);
    hdr_new.dst_lid    = dst_i[pick];
    hdr_new.src_lid    = own_lid_i;
    hdr_new.prio       = prio_i[pick];
    hdr_new.ecn        = ect_i[pick] ? EcnEct0 : EcnNotEct;
    hdr_new.flow_label = label_i[pick];
    hdr_new.epoch      = sent_i[pick][15:0];
  end

  // Payload flit j of packet n (little-endian): label, n, j.
  flit_t payload;
  assign payload = flit_t'({48'b0, 16'(j_q), seq_q, 32'(hdr_q.flow_label)});

  assign busy_o     = state_q != SndIdle;
  assign tx_valid_o = grant_o || state_q != SndIdle;
  always_comb begin
    unique case (state_q)
      SndHdr:  tx_data_o = flit_t'(hdr_q);
      SndPay:  tx_data_o = payload;
      default: tx_data_o = flit_t'(hdr_new);
    endcase
  end
  assign tx_last_o = state_q == SndPay && j_q == hdr_q.len_flits - FlitsW'(1);

  logic tx_fire;
  assign tx_fire    = tx_valid_o && tx_ready_i;
  assign done_o     = tx_fire && tx_last_o && last_pkt_q && running_i[flow_q];
  assign done_idx_o = flow_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= SndIdle;
      hdr_q      <= '0;
      flow_q     <= '0;
      last_q     <= FlowIdxW'(NUM_FLOWS - 1);
      seq_q      <= '0;
      j_q        <= '0;
      last_pkt_q <= 1'b0;
    end else begin
      unique case (state_q)
        SndIdle: begin
          if (grant_o) begin
            hdr_q      <= hdr_new;
            flow_q     <= pick;
            last_q     <= pick;
            seq_q      <= sent_i[pick];
            j_q        <= FlitsW'(1);
            last_pkt_q <= sent_i[pick] + 32'd1 == pkts_i[pick];
            state_q    <= tx_ready_i ? SndPay : SndHdr;
          end
        end
        SndHdr: begin
          if (tx_ready_i) begin
            state_q <= SndPay;
          end
        end
        SndPay: begin
          if (tx_ready_i) begin
            if (tx_last_o) begin
              state_q <= SndIdle;
            end else begin
              j_q <= j_q + FlitsW'(1);
            end
          end
        end
        default: state_q <= SndIdle;
      endcase
      // A new run of the entry: the packet on the link is no longer its last.
      if (start_i && start_idx_i == flow_q && state_q != SndIdle) begin
        last_pkt_q <= 1'b0;
      end
    end
  end

  // verilog_format: off
  `NIC_ASSERT_IMP(a_grant_eligible, grant_o, eligible[grant_idx_o])
  // The NIC's arbiter never lets another source start while a DATA packet is
  // on the link.
  `NIC_ASSERT_IMP(a_busy_not_allowed, busy_o, !allow_i)
  // A shown header is taken before anything else leaves; the payload flits
  // follow back to back (tx_valid_o stays high until the last one).
  `NIC_ASSERT_IMP(a_busy_valid, busy_o, tx_valid_o)
  `NIC_ASSERT(a_payload_in_range, state_q != SndPay ||
                                  (j_q != '0 && j_q < hdr_q.len_flits))
  // verilog_format: on

endmodule
