// DCQCN notification point (docs/nic/dcqcn.md §4): the table of the flows
// that got a CNP lately and the queue of CNPs waiting for the link.
//
// ce_i: in this cycle t the last flit of a CE-marked DATA packet for this
// NIC is taken, CTRL.NP_ENABLE is 1; its flow F = (ce_src_i, ce_label_i).
// The table has NP_SLOTS slots {valid, src_lid, flow_label, age}; age is
// t - t0 of the cycle t0 the slot's last CNP was queued (§4 allows a counter
// instead of t0), saturating at its maximum, which no CNP_INTERVAL.CYCLES
// exceeds. A slot is recent at t when valid and age < interval_i (never when
// interval_i is 0). Then:
//   1. a slot holds F and is recent: no CNP (evt_suppressed_o);
//   2. else the slot holding F, or the lowest-numbered slot not recent; none,
//      or the queue holding CNP_QUEUE_DEPTH CNPs after this cycle's grant
//      (the head first shown on tx in t leaves the queue in t): no CNP
//      (evt_drop_o);
//   3. else the CNP is queued and the slot becomes {valid, F, age 0}.
// The queue holds CNP headers (§7), made when queued: destination the DATA
// packet's src_lid, src_lid NODE_LID and prio NP_CFG.CNP_PRIO of that cycle,
// the flow label. The arbiter shows the head (cnp_shown_i); a head shown and
// not taken leaves the queue for a holding register and stays shown from
// there until taken (§6), so the queue has room for another CNP from the
// cycle its head is first shown. Reset: table empty, queue empty, nothing
// held.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_dcqcn_np
  import syncfab_fmt_pkg::*;
#(
  localparam int unsigned LabelW = PKT_HDR_FLOW_LABEL_W,
  localparam int unsigned LidW   = PKT_HDR_SRC_LID_W,
  localparam int unsigned SlotW  = (NP_SLOTS > 1) ? $clog2(NP_SLOTS) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic [31:0]       interval_i,  // CNP_INTERVAL.CYCLES
  input  logic [LidW-1:0]   own_lid_i,   // NODE_LID.LID
  input  logic [PKT_HDR_PRIO_W-1:0] prio_i,  // NP_CFG.CNP_PRIO

  input  logic              ce_i,
  input  logic [LidW-1:0]   ce_src_i,
  input  logic [LabelW-1:0] ce_label_i,

  // Queue head, to the network arbiter
  output logic              cnp_valid_o,
  input  logic              cnp_shown_i,  // the arbiter shows the CNP on tx
  input  logic              cnp_ready_i,  // ... and it is taken
  output pkt_hdr_t          cnp_hdr_o,

  output logic              evt_suppressed_o,
  output logic              evt_drop_o
);

  typedef struct packed {
    logic [LidW-1:0]   lid;
    logic [LabelW-1:0] label;
  } np_flow_t;

  logic [NP_SLOTS-1:0] valid_q;
  np_flow_t [NP_SLOTS-1:0] flow_q;
  logic [NP_SLOTS-1:0][31:0] age_q;

  np_flow_t ce_flow;
  assign ce_flow = '{lid: ce_src_i, label: ce_label_i};

  logic [NP_SLOTS-1:0] hit, recent;
  always_comb begin
    for (int unsigned s = 0; s < NP_SLOTS; s++) begin
      hit[s]    = valid_q[s] && flow_q[s] == ce_flow;
      recent[s] = valid_q[s] && age_q[s] < interval_i;
    end
  end

  // The slot for F: the one holding it, else the lowest one not recent.
  logic slot_found;
  logic [SlotW-1:0] slot;
  always_comb begin
    slot_found = 1'b0;
    slot = '0;
    if (hit != '0) begin
      slot_found = 1'b1;
      for (int unsigned s = 0; s < NP_SLOTS; s++) begin
        if (hit[s]) begin
          slot = SlotW'(s);
        end
      end
    end else begin
      for (int s = NP_SLOTS - 1; s >= 0; s--) begin
        if (!recent[s]) begin
          slot_found = 1'b1;
          slot = SlotW'(s);
        end
      end
    end
  end

  logic q_space, push;
  assign evt_suppressed_o = ce_i && (hit & recent) != '0;
  assign push             = ce_i && !evt_suppressed_o && slot_found && q_space;
  assign evt_drop_o       = ce_i && !evt_suppressed_o && !push;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      flow_q  <= '0;
      age_q   <= '0;
    end else begin
      for (int unsigned s = 0; s < NP_SLOTS; s++) begin
        if (valid_q[s] && age_q[s] != '1) begin
          age_q[s] <= age_q[s] + 32'd1;
        end
      end
      if (push) begin
        valid_q[slot] <= 1'b1;
        flow_q[slot]  <= ce_flow;
        age_q[slot]   <= 32'd1;  // age 0 in t, 1 in t + 1
      end
    end
  end

  // The queue: CNP_QUEUE_DEPTH headers, a push allowed in the cycle the
  // head leaves even when full.
  localparam int unsigned QIdxW = (CNP_QUEUE_DEPTH > 1) ? $clog2(CNP_QUEUE_DEPTH) : 1;
  localparam int unsigned QCntW = $clog2(CNP_QUEUE_DEPTH + 1);
  pkt_hdr_t [CNP_QUEUE_DEPTH-1:0] q_hdr_q;
  logic [QIdxW-1:0] q_head_q, q_tail_q;
  logic [QCntW-1:0] q_count;
  logic pop;
  logic held_q;  // a CNP shown and not taken, out of the queue
  pkt_hdr_t held_hdr_q;

  // The head leaves the queue when first shown (the grant).
  assign cnp_valid_o = held_q || q_count != '0;
  assign pop         = cnp_shown_i && !held_q;
  assign q_space     = 32'(q_count) < CNP_QUEUE_DEPTH || pop;
  assign cnp_hdr_o   = held_q ? held_hdr_q : q_hdr_q[q_head_q];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q     <= 1'b0;
      held_hdr_q <= '0;
    end else if (held_q) begin
      held_q <= !cnp_ready_i;
    end else if (pop && !cnp_ready_i) begin
      held_q     <= 1'b1;
      held_hdr_q <= q_hdr_q[q_head_q];
    end
  end

  pkt_hdr_t new_hdr;
  always_comb begin
    new_hdr            = '0;
    new_hdr.pkt_type   = PktCnp;
    new_hdr.len_flits  = 8'd1;
    new_hdr.dst_lid    = ce_src_i;
    new_hdr.src_lid    = own_lid_i;
    new_hdr.prio       = prio_i;
    new_hdr.ecn        = EcnNotEct;
    new_hdr.flow_label = ce_label_i;
  end

  function automatic logic [QIdxW-1:0] q_next(logic [QIdxW-1:0] i);
    return (32'(i) == CNP_QUEUE_DEPTH - 1) ? '0 : i + QIdxW'(1);
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      q_hdr_q  <= '0;
      q_head_q <= '0;
      q_tail_q <= '0;
      q_count  <= '0;
    end else begin
      if (push) begin
        q_hdr_q[q_tail_q] <= new_hdr;
        q_tail_q <= q_next(q_tail_q);
      end
      if (pop) begin
        q_head_q <= q_next(q_head_q);
      end
      q_count <= q_count + QCntW'(push) - QCntW'(pop);
    end
  end

  // verilog_format: off
  // At most one slot holds a flow (a flow's slot is reused).
  `NIC_ASSERT_ONEHOT0(a_np_hit_unique, hit)
  `NIC_ASSERT_IMP(a_np_push_room, push, 32'(q_count) < CNP_QUEUE_DEPTH || pop)
  `NIC_ASSERT(a_np_count_in_range, 32'(q_count) <= CNP_QUEUE_DEPTH)
  // The arbiter shows a CNP only when there is one, and takes only what it shows.
  `NIC_ASSERT_IMP(a_np_shown_valid, cnp_shown_i, cnp_valid_o)
  `NIC_ASSERT_IMP(a_np_taken_shown, cnp_ready_i, cnp_shown_i)
  // A held CNP stays shown until taken.
  `NIC_ASSERT_IMP(a_np_held_shown, held_q, cnp_shown_i)
  `NIC_ASSERT_ONEHOT0(a_np_one_verdict, {push, evt_suppressed_o, evt_drop_o})
  `NIC_ASSERT_IMP(a_np_verdict, ce_i, push || evt_suppressed_o || evt_drop_o)
  // verilog_format: on

endmodule
