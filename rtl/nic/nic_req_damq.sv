// Request DAMQ of the barrier engine: notifications parked per context.
//
// docs/barrier-protocol.md §4 rule 6 and §5. A notification that arrives
// before its descriptor is active (or for a later epoch) is parked in its
// context's queue of one shared buffer (rtl/common/damq.sv, no per-context
// reservation), unless an identical entry (src, epoch, round) is already
// parked. Activation walks the context's queue in arrival order; entries whose
// epoch is still in the future must stay parked, in order.
//
// Two additions around the plain DAMQ:
//   * A tag array (one entry per DAMQ slot, ctx + parked_t) answers "is this
//     one already parked?" in one cycle; the DAMQ itself can only show heads.
//     An entry is added on park and removed when the drain takes it for good;
//     dups are never parked, so tags are unique and removal can match by
//     value.
//   * Rotation: the drain pops the head; an entry that must stay goes into a
//     one-entry hold register and is pushed back at the tail the next cycle.
//     The DAMQ frees a popped slot only the cycle after (no bypass), so the
//     push-back always finds room, even in a full buffer. Parking is refused
//     while the hold register is full.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_req_damq
  import nic_pkg::*;
#(
  parameter int unsigned NumCtx   = NumCtxDefault,
  parameter int unsigned NumSlots = ReqDamqSlotsDefault,
  localparam int unsigned CtxIdxW = (NumCtx > 1) ? $clog2(NumCtx) : 1,
  localparam int unsigned CntW    = $clog2(NumSlots + 1)
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  // Park: also the lookup key (park_dup_o is valid whenever park_ctx_i /
  // park_entry_i are driven, whether or not park_valid_i is set).
  input  logic                            park_valid_i,
  input  logic [CtxIdxW-1:0]              park_ctx_i,
  input  parked_t                         park_entry_i,
  output logic                            park_ready_o,  // a free slot and no push-back pending
  output logic                            park_dup_o,    // an identical entry is parked
  // Drain: pop the head of drain_ctx_i; drain_keep_i says the entry stays
  // (pushed back at the tail next cycle) rather than leaving for good.
  input  logic                            drain_valid_i,
  input  logic [CtxIdxW-1:0]              drain_ctx_i,
  input  logic                            drain_keep_i,
  output logic                            drain_ready_o,  // the queue is not empty
  output parked_t                         drain_entry_o,  // its head
  output logic                            hold_valid_o,   // a push-back is pending
  // Occupancy (registered state).
  output logic [NumCtx-1:0][CntW-1:0]     queue_count_o,
  output logic [CntW-1:0]                 free_count_o
);

  `SF_STATIC_ASSERT(gen_num_ctx_check, NumCtx >= 1)
  `SF_STATIC_ASSERT(gen_num_slots_check, NumSlots >= 1)

  typedef struct packed {
    logic [CtxIdxW-1:0] ctx;
    parked_t            entry;
  } tag_t;

  // ---------------------------------------------------------------- DAMQ
  logic enq_valid, enq_ready;
  logic [CtxIdxW-1:0] enq_ctx;
  parked_t enq_entry;
  logic [ParkedW-1:0] deq_data;
  logic full_unused, almost_full_unused;
  logic [NumCtx-1:0] empty_unused;

  logic hold_q, hold_d;
  tag_t hold_tag_q, hold_tag_d;

  // The push-back has priority; nic_se does not park while draining anyway.
  always_comb begin
    enq_valid = hold_q || park_valid_i;
    enq_ctx   = hold_q ? hold_tag_q.ctx : park_ctx_i;
    enq_entry = hold_q ? hold_tag_q.entry : park_entry_i;
  end

  damq #(
    .NumQueues      (NumCtx),
    .NumSlots       (NumSlots),
    .Width          (ParkedW),
    .AlmostFullSlots(0)
  ) u_damq (
    .clk_i,
    .rst_ni,
    .enq_valid_i  (enq_valid),
    .enq_queue_i  (enq_ctx),
    .enq_data_i   (enq_entry),
    .enq_ready_o  (enq_ready),
    .deq_valid_i  (drain_valid_i),
    .deq_queue_i  (drain_ctx_i),
    .deq_ready_o  (drain_ready_o),
    .deq_data_o   (deq_data),
    .queue_empty_o(empty_unused),
    .queue_count_o(queue_count_o),
    .free_count_o (free_count_o),
    .full_o       (full_unused),
    .almost_full_o(almost_full_unused)
  );

  assign drain_entry_o = parked_t'(deq_data);
  assign park_ready_o  = enq_ready && !hold_q;
  assign hold_valid_o  = hold_q;

  logic park_fire, drain_fire;
  assign park_fire  = park_valid_i && park_ready_o;
  assign drain_fire = drain_valid_i && drain_ready_o;

  always_comb begin
    hold_d     = drain_fire && drain_keep_i;
    hold_tag_d = hold_tag_q;
    if (drain_fire) begin
      hold_tag_d = '{ctx: drain_ctx_i, entry: drain_entry_o};
    end
  end

  // ------------------------------------------------------------ tag array
  localparam int unsigned TagIdxW = (NumSlots > 1) ? $clog2(NumSlots) : 1;

  logic [NumSlots-1:0] tag_valid_q;
  tag_t [NumSlots-1:0] tag_q;
  logic [NumSlots-1:0] park_hit, drain_hit;
  logic [TagIdxW-1:0]  free_idx;
  logic                free_found;
  tag_t park_tag, drain_tag;

  assign park_tag  = '{ctx: park_ctx_i, entry: park_entry_i};
  assign drain_tag = '{ctx: drain_ctx_i, entry: drain_entry_o};

  // Three processes: the free slot depends on registers only, the lookups
  // on the park and drain keys; the park key comes from the rx inputs, so its
  // lookup is re-evaluated on every model evaluation. With no tag valid (the
  // buffer empty: nearly always) nothing can hit and the tags are not read.
  always_comb begin
    free_idx   = '0;
    free_found = 1'b0;
    for (int unsigned i = 0; i < NumSlots; i++) begin
      if (!tag_valid_q[i] && !free_found) begin
        free_idx   = TagIdxW'(i);
        free_found = 1'b1;
      end
    end
  end

  always_comb begin
    park_hit = '0;
    if (tag_valid_q != '0) begin
      for (int unsigned i = 0; i < NumSlots; i++) begin
        park_hit[i] = tag_valid_q[i] && (tag_q[i] == park_tag);
      end
    end
  end

  always_comb begin
    drain_hit = '0;
    if (tag_valid_q != '0) begin
      for (int unsigned i = 0; i < NumSlots; i++) begin
        drain_hit[i] = tag_valid_q[i] && (tag_q[i] == drain_tag);
      end
    end
  end

  assign park_dup_o = |park_hit;

  // The tags are updated in place (a park writes one): a next-state copy of
  // the array would be made on every model evaluation, since a park depends
  // on the rx header input.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_q      <= 1'b0;
      hold_tag_q  <= '0;
      tag_valid_q <= '0;
      tag_q       <= '0;
    end else begin
      hold_q     <= hold_d;
      hold_tag_q <= hold_tag_d;
      if (drain_fire && !drain_keep_i) begin
        tag_valid_q <= tag_valid_q & ~drain_hit;
      end
      // Allocation uses the registered free map: a tag freed this cycle is
      // reused next cycle at the earliest, like the DAMQ slot it mirrors.
      if (park_fire) begin
        tag_valid_q[free_idx] <= 1'b1;
        tag_q[free_idx]       <= park_tag;
      end
    end
  end

  // ---------------------------------------------------------------- rules
`ifndef SYNTHESIS
  int unsigned used_slots;
  always_comb begin
    used_slots = 0;
    for (int unsigned c = 0; c < NumCtx; c++) begin
      used_slots += 32'(queue_count_o[c]);
    end
  end

  // Every parked entry has exactly one tag; the held one keeps its tag.
  `NIC_ASSERT(a_tags_match_slots, 32'($countones(tag_valid_q)) == used_slots + 32'(hold_q))
  // Tags are unique, so the entry leaving for good frees exactly one.
  `NIC_ASSERT_IMP(a_drain_frees_one_tag, drain_fire && !drain_keep_i, $onehot(drain_hit))
  `NIC_ASSERT_IMP(a_drain_keep_has_tag, drain_fire && drain_keep_i, $onehot(drain_hit))
  // A duplicate is never parked (SE ACKs it as DUP instead).
  `NIC_ASSERT_IMP(a_park_not_dup, park_fire, !park_dup_o)
  `NIC_ASSERT_IMP(a_park_has_free_tag, park_fire, free_found)
  `NIC_ASSERT_ONEHOT0(a_park_hit_unique, park_hit)
  // The push-back always finds room: the popped slot is free again.
  `NIC_ASSERT_IMP(a_push_back_lands, hold_q, enq_ready)
  `NIC_ASSERT_IMP(a_no_park_during_push_back, hold_q, !park_fire)
  `NIC_ASSERT_IMP(a_park_ctx_in_range, park_valid_i, 32'(park_ctx_i) < NumCtx)
  `NIC_ASSERT_IMP(a_drain_ctx_in_range, drain_valid_i, 32'(drain_ctx_i) < NumCtx)
`endif  // SYNTHESIS

endmodule
