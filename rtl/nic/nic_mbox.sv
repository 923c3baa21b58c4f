// Management mailbox: the driver's datagrams to and from the subnet-manager
// agent (docs/group-protocol.md §1). Structure, timing and the decisions the
// spec leaves open: docs/nic/mbox.md.
//
// Send: a SEND pulse while idle copies the 8 payload words and DST_LID into
// the send register; the packet leaves as three flits (header, payload bytes
// 0..15, payload bytes 16..31) on tx_*, held until taken, back to back. The
// header's src_lid and prio follow own_lid_i and tc_i until it leaves (the
// network arbiter stamps every header as it leaves).
//
// Receive: every flit of a MGMT packet arrives on rx_* (always taken). The
// header is judged as it arrives (dst_lid = own LID, len_flits =
// MGMT_FLITS), the flit count at the last flit, where the packet enters the
// FIFO (evt_recv_o, intr_mgmt_rx_o) or is dropped (evt_drop_o): one verdict
// per packet, at its last flit. The FIFO's head is shown on rx_head_*
// (0 when empty); pop_i removes it.
//
// Interfaces (valid/ready, transfer when both are high):
//   send_i / dst_lid_i / tx_words_i   MBOX_TX_CTRL.SEND pulse, DST_LID, MBOX_TX_DATA0..7.
//   tx_*    the packet's flits; tx_last_o on the third.
//   rx_*    the flits of a MGMT packet from the rx demux; rx_first_i on its
//           header, rx_last_i on its last flit (no ready: always taken).
//   evt_*   one-cycle counter pulses.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_mbox
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
#(
  parameter int unsigned MboxDepth = 4,  // datagrams of the receive FIFO (HW_CFG2.MBOX_DEPTH)
  localparam int unsigned LevelW = 8
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  // Control (CSRs).
  input  lid_t                      own_lid_i,     // NODE_LID
  input  prio_t                     tc_i,          // NET_CFG.TC
  input  logic                      soft_reset_i,  // CTRL.SOFT_RESET pulse
  // Send (MBOX_TX_*).
  input  logic                      send_i,
  input  lid_t                      dst_lid_i,
  input  logic [7:0][31:0]          tx_words_i,
  output logic                      tx_busy_o,     // MBOX_STATUS.TX_BUSY
  output logic                      tx_valid_o,
  input  logic                      tx_ready_i,
  output flit_t                     tx_data_o,
  output logic                      tx_last_o,
  output logic                      tx_started_o,  // the header has left, the payload has not
  // Receive.
  input  logic                      rx_valid_i,
  input  logic                      rx_first_i,
  input  logic                      rx_last_i,
  input  flit_t                     rx_data_i,
  input  logic                      pop_i,         // MBOX_RX_POP.POP pulse
  output logic [7:0][31:0]          rx_head_words_o,  // MBOX_RX_DATA0..7
  output lid_t                      rx_head_src_o,    // MBOX_RX_SRC
  output logic [LevelW-1:0]         rx_level_o,       // MBOX_STATUS.RX_LEVEL
  // Events.
  output logic                      evt_sent_o,   // the last flit left (CNT_MGMT_SENT)
  output logic                      evt_recv_o,   // a datagram entered (CNT_MGMT_RECV, MGMT_RX)
  output logic                      evt_drop_o    // a MGMT packet dropped (CNT_DROP)
);

  `SF_STATIC_ASSERT(gen_mbox_depth_check, MboxDepth >= 1 && MboxDepth <= 255)
  // The payload is two flits: one mgmt_msg.
  `SF_STATIC_ASSERT(gen_mgmt_flits_check, MGMT_FLITS == 3 && MGMT_MSG_BITS == 2 * FLIT_BITS)

  localparam int unsigned PtrW = (MboxDepth > 1) ? $clog2(MboxDepth) : 1;
  typedef logic [PtrW-1:0] ptr_t;

  // =========================================================================
  // Send
  // =========================================================================
  logic               tx_busy_q;
  logic [1:0]         tx_flit_q;  // the flit shown: 0 header, 1 and 2 payload
  lid_t               tx_dst_q;
  logic [MGMT_MSG_BITS-1:0] tx_msg_q;
  logic tx_fire, send_take;
  pkt_hdr_t tx_hdr;

  assign tx_fire   = tx_valid_o && tx_ready_i;
  // A SEND while busy is ignored; a soft reset in the SEND's cycle wins.
  assign send_take = send_i && !tx_busy_q && !soft_reset_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tx_busy_q <= 1'b0;
      tx_flit_q <= '0;
      tx_dst_q  <= '0;
      tx_msg_q  <= '0;
    end else if (send_take) begin
      tx_busy_q <= 1'b1;
      tx_flit_q <= '0;
      tx_dst_q  <= dst_lid_i;
      tx_msg_q  <= tx_words_i;
    end else if (soft_reset_i && tx_flit_q == 2'd0 && !tx_fire) begin
      // A send whose header has not left is abandoned; one under way,
      // including one whose header leaves in the reset's cycle, finishes
      // (a packet is never cut on the link).
      tx_busy_q <= 1'b0;
    end else if (tx_fire) begin
      tx_busy_q <= tx_flit_q != 2'(MGMT_FLITS - 1);
      tx_flit_q <= (tx_flit_q == 2'(MGMT_FLITS - 1)) ? 2'd0 : tx_flit_q + 2'd1;
    end
  end

  always_comb begin
    tx_hdr           = '0;
    tx_hdr.pkt_type  = PktMgmt;
    tx_hdr.len_flits = PKT_HDR_LEN_FLITS_W'(MGMT_FLITS);
    tx_hdr.dst_lid   = tx_dst_q;
    tx_hdr.src_lid   = own_lid_i;
    tx_hdr.prio      = tc_i;
    unique case (tx_flit_q)
      2'd1:    tx_data_o = tx_msg_q[FLIT_BITS-1:0];
      2'd2:    tx_data_o = tx_msg_q[2*FLIT_BITS-1:FLIT_BITS];
      default: tx_data_o = flit_t'(tx_hdr);
    endcase
  end

  assign tx_valid_o   = tx_busy_q;
  assign tx_last_o    = tx_flit_q == 2'(MGMT_FLITS - 1);
  assign tx_started_o = tx_busy_q && tx_flit_q != 2'd0;
  assign tx_busy_o    = tx_busy_q || send_i;
  assign evt_sent_o   = tx_fire && tx_last_o;

  // =========================================================================
  // Receive
  // =========================================================================
  // The packet being received: its header's verdict so far, its source, the
  // flits taken (saturating at 3) and the first payload flit (the second
  // goes into the FIFO straight from rx).
  logic rx_hdr_ok_q, rx_hdr_ok;
  lid_t       rx_src_q;
  logic [1:0] rx_flits_q;   // flits taken before this one (header included)
  flit_t      rx_pl0_q;
  pkt_hdr_t   rx_hdr;
  logic rx_end, rx_accept, rx_shape_ok;

  assign rx_hdr = pkt_hdr_t'(rx_data_i);
  logic unused_rx_hdr;  // the verdict reads type-independent fields only
  assign unused_rx_hdr = ^rx_hdr;
  // Unicast to this node (an MLID is never a node's LID, but NODE_LID may be
  // written with one) and the length MGMT_FLITS.
  assign rx_hdr_ok = rx_hdr.dst_lid == own_lid_i && rx_hdr.dst_lid < MLID_BASE &&
                     rx_hdr.len_flits == PKT_HDR_LEN_FLITS_W'(MGMT_FLITS);

  // FIFO
  logic [MboxDepth-1:0][MGMT_MSG_BITS-1:0] fifo_msg_q;
  lid_t [MboxDepth-1:0]                    fifo_src_q;
  ptr_t rd_ptr_q, wr_ptr_q;
  logic [LevelW-1:0] level_q;
  logic full, empty, push, pop_take;

  assign full  = level_q == LevelW'(MboxDepth);
  assign empty = level_q == '0;

  assign rx_end      = rx_valid_i && rx_last_i;
  // The third flit of a packet whose header passed, ending here.
  assign rx_shape_ok = !rx_first_i && rx_hdr_ok_q && rx_flits_q == 2'd2;
  // A soft reset empties the FIFO at this edge; a datagram ending in the
  // same cycle enters the emptied FIFO (the link is not reset).
  assign rx_accept   = rx_end && rx_shape_ok && (!full || soft_reset_i);
  assign push        = rx_accept;
  assign pop_take    = pop_i && !empty && !soft_reset_i;
  assign evt_recv_o  = rx_accept;
  assign evt_drop_o  = rx_end && !rx_accept;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_hdr_ok_q <= 1'b0;
      rx_src_q    <= '0;
      rx_flits_q  <= '0;
      rx_pl0_q    <= '0;
    end else if (rx_valid_i) begin
      if (rx_first_i) begin
        rx_hdr_ok_q <= rx_hdr_ok;
        rx_src_q    <= rx_hdr.src_lid;
        rx_flits_q  <= 2'd1;
      end else if (rx_flits_q != 2'd3) begin
        rx_flits_q <= rx_flits_q + 2'd1;
      end
      if (!rx_first_i && rx_flits_q == 2'd1) begin
        rx_pl0_q <= rx_data_i;
      end
    end
  end

  ptr_t wr_idx;
  assign wr_idx = soft_reset_i ? ptr_t'(0) : wr_ptr_q;

  // Storage without reset: a slot is read only while counted in level_q.
  always_ff @(posedge clk_i) begin
    if (push) begin
      fifo_msg_q[wr_idx] <= {rx_data_i, rx_pl0_q};
      fifo_src_q[wr_idx] <= rx_src_q;
    end
  end

  function automatic ptr_t ptr_inc(ptr_t p);
    return (p == ptr_t'(MboxDepth - 1)) ? ptr_t'(0) : p + ptr_t'(1);
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_ptr_q <= '0;
      wr_ptr_q <= '0;
      level_q  <= '0;
    end else if (soft_reset_i) begin
      rd_ptr_q <= '0;
      wr_ptr_q <= push ? ptr_inc('0) : '0;
      level_q  <= push ? LevelW'(1) : '0;
    end else begin
      if (push) begin
        wr_ptr_q <= ptr_inc(wr_ptr_q);
      end
      if (pop_take) begin
        rd_ptr_q <= ptr_inc(rd_ptr_q);
      end
      level_q <= level_q + LevelW'(push) - LevelW'(pop_take);
    end
  end

  assign rx_head_words_o = empty ? '0 : fifo_msg_q[rd_ptr_q];
  assign rx_head_src_o   = empty ? '0 : fifo_src_q[rd_ptr_q];
  assign rx_level_o      = level_q;

  // =========================================================================
  // Rules
  // =========================================================================
`ifndef SYNTHESIS
  logic [1:0] tx_flit_prev_q;
  always_ff @(posedge clk_i) begin
    tx_flit_prev_q <= tx_flit_q;
  end
  // verilog_format: off
  // The FIFO never overflows: a datagram enters only with room.
  `NIC_ASSERT_IMP(a_mbox_no_overflow, push && !soft_reset_i, !full)
  `NIC_ASSERT(a_mbox_level_in_range, 32'(level_q) <= MboxDepth)
  // One verdict per MGMT packet, at its last flit, never inside it.
  `NIC_ASSERT_IMP(a_mbox_one_verdict, rx_valid_i, rx_last_i ? $onehot({evt_recv_o, evt_drop_o})
                                                            : !(evt_recv_o || evt_drop_o))
  // What enters is three flits whose header named this node and MGMT_FLITS.
  `NIC_ASSERT_IMP(a_mbox_recv_shape, evt_recv_o, rx_flits_q == 2'd2 && rx_hdr_ok_q && !rx_first_i)
  // A flit shown stays until taken (its header's src/prio follow the CSRs),
  // except that a soft reset withdraws a header not yet taken.
  `NIC_ASSERT_NXT(a_mbox_tx_hold, tx_valid_o && !tx_ready_i && !soft_reset_i,
                  tx_valid_o && tx_flit_q == tx_flit_prev_q)
  // Once the header has left, the payload follows back to back (no bubble,
  // never withdrawn): the network arbiter relies on it.
  `NIC_ASSERT_IMP(a_mbox_payload_follows, tx_started_o, tx_valid_o)
  `NIC_ASSERT_KNOWN(a_mbox_tx_valid_known, tx_valid_o)
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
