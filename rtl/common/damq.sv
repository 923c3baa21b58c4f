// Dynamically allocated multi-queue (DAMQ).
//
// NumQueues FIFOs share one buffer of NumSlots slots. A queue takes slots only
// while it holds data, so one busy queue can use almost the whole buffer while
// idle queues cost nothing; with statically split buffers a burst to one queue
// would be refused while other partitions sit empty. In the NIC this buffers
// requests and responses, and full_o / almost_full_o decide ACK vs NACK, so the
// flags must describe exactly the space an incoming request can use.
//
// Structure: every slot holds a data word and a next-slot pointer. Each queue is
// a singly linked list (head, tail, count) through those pointers, and so is the
// free list: all lists share one type and one pointer array, and a slot moves
// between lists by relinking, never by copying data.
//
// Timing contract (the C++ and cocotb references rely on it):
//   * Outputs other than deq_ready_o / deq_data_o depend only on registered
//     state, i.e. the state after the previous clock edge; deq_ready_o and
//     deq_data_o additionally decode deq_queue_i combinationally.
//   * One enqueue (to any queue) and one dequeue (from any queue, including the
//     same one) can happen in the same cycle.
//   * No bypass: a slot freed by this cycle's dequeue becomes usable next cycle,
//     so enq_ready_o never depends on deq_valid_i; and a queue that is empty at
//     the start of the cycle cannot be dequeued even if it is enqueued in that
//     cycle. Both keep the handshakes free of combinational paths between the
//     enqueue and dequeue sides.

`include "syncfab_assert.svh"

module damq #(
  parameter int unsigned NumQueues       = 4,
  parameter int unsigned NumSlots        = 16,
  parameter int unsigned Width           = 32,
  parameter int unsigned AlmostFullSlots = 2,
  localparam int unsigned QIdxW = (NumQueues > 1) ? $clog2(NumQueues) : 1,
  localparam int unsigned CntW  = $clog2(NumSlots + 1)
) (
  input  logic                               clk_i,
  input  logic                               rst_ni,
  // Enqueue side.
  input  logic                               enq_valid_i,
  input  logic [QIdxW-1:0]                   enq_queue_i,   // must be < NumQueues
  input  logic [Width-1:0]                   enq_data_i,
  output logic                               enq_ready_o,   // a free slot exists (= !full_o)
  // Dequeue side.
  input  logic                               deq_valid_i,
  input  logic [QIdxW-1:0]                   deq_queue_i,   // must be < NumQueues
  output logic                               deq_ready_o,   // queue deq_queue_i is not empty
  output logic [Width-1:0]                   deq_data_o,    // head of deq_queue_i
  // Occupancy (registered state).
  output logic [NumQueues-1:0]               queue_empty_o,
  output logic [NumQueues-1:0][CntW-1:0]     queue_count_o,
  output logic [CntW-1:0]                    free_count_o,
  output logic                               full_o,
  output logic                               almost_full_o  // free_count_o <= AlmostFullSlots
);

  `SF_STATIC_ASSERT(gen_num_queues_check, NumQueues >= 1)
  `SF_STATIC_ASSERT(gen_num_slots_check, NumSlots >= 1)
  `SF_STATIC_ASSERT(gen_width_check, Width >= 1)
  // Above NumSlots the flag would be constantly set, which is surely a typo.
  `SF_STATIC_ASSERT(gen_almost_full_check, AlmostFullSlots <= NumSlots)

  // A single-slot buffer still needs a 1-bit pointer to index its storage.
  localparam int unsigned SlotW = (NumSlots > 1) ? $clog2(NumSlots) : 1;

  typedef logic [SlotW-1:0] slot_t;
  typedef logic [CntW-1:0] cnt_t;
  typedef logic [QIdxW-1:0] qidx_t;

  // One linked list: a queue or the free list. head/tail are meaningless while
  // count is 0; the count, not a pointer compare, says whether a list is empty,
  // because head == tail also holds for a one-element list.
  typedef struct packed {
    slot_t head;
    slot_t tail;
    cnt_t  count;
  } list_t;

  typedef slot_t [NumSlots-1:0] next_arr_t;

  localparam cnt_t AllSlots = cnt_t'(NumSlots);

  // After reset every slot is free, linked in index order. The last slot's
  // pointer wraps to 0 only to have a defined value; as the tail it is unused.
  function automatic next_arr_t init_next();
    next_arr_t n;
    for (int unsigned i = 0; i < NumSlots; i++) begin
      n[i] = slot_t'((i + 1) % NumSlots);
    end
    return n;
  endfunction

  localparam next_arr_t InitNext = init_next();
  localparam list_t InitFree = '{head: '0, tail: slot_t'(NumSlots - 1), count: AllSlots};

  logic [Width-1:0] data_q[NumSlots];
  next_arr_t next_q, next_d;
  list_t [NumQueues-1:0] queue_q, queue_d;
  list_t free_q, free_d;

  logic enq_queue_ok, deq_queue_ok;
  logic enq_fire, deq_fire;
  slot_t enq_slot, deq_slot;

  // Out-of-range queue numbers exist only when NumQueues is not a power of two.
  // They are rule violations (asserted below); the gating keeps the lists
  // consistent anyway, so a bad request cannot corrupt other queues' data.
  assign enq_queue_ok = (32'(enq_queue_i) < NumQueues);
  assign deq_queue_ok = (32'(deq_queue_i) < NumQueues);

  assign enq_ready_o = (free_q.count != '0);
  assign deq_ready_o = deq_queue_ok && (queue_q[deq_queue_i].count != '0);

  assign enq_fire = enq_valid_i && enq_ready_o && enq_queue_ok;
  assign deq_fire = deq_valid_i && deq_ready_o;

  // An enqueue always takes the free list's head; a dequeue frees its queue's.
  assign enq_slot   = free_q.head;
  assign deq_slot   = queue_q[deq_queue_i].head;
  assign deq_data_o = data_q[deq_slot];

  // Next state of all lists. The dequeue is applied first so that an enqueue
  // into the same queue sees the count after the pop: a one-element queue that
  // is popped and pushed in one cycle must restart at the new slot instead of
  // linking it behind the slot that is leaving. The two pointer writes below
  // never hit the same slot: one is the tail of a queue (an allocated slot) and
  // the other the tail of the free list (a free slot).
  always_comb begin
    queue_d = queue_q;
    free_d  = free_q;
    next_d  = next_q;

    if (deq_fire) begin
      queue_d[deq_queue_i].head  = next_q[deq_slot];
      queue_d[deq_queue_i].count = queue_q[deq_queue_i].count - cnt_t'(1);
    end

    if (enq_fire) begin
      if (queue_d[enq_queue_i].count == '0) begin
        queue_d[enq_queue_i].head = enq_slot;
      end else begin
        next_d[queue_q[enq_queue_i].tail] = enq_slot;
      end
      queue_d[enq_queue_i].tail  = enq_slot;
      queue_d[enq_queue_i].count = queue_d[enq_queue_i].count + cnt_t'(1);

      free_d.head  = next_q[free_q.head];
      free_d.count = free_q.count - cnt_t'(1);
    end

    // The freed slot joins the free list's tail, after this cycle's
    // allocation has been taken from its head: that ordering is what keeps a
    // freed slot from being reused in the same cycle.
    if (deq_fire) begin
      if (free_d.count == '0) begin
        free_d.head = deq_slot;
      end else begin
        next_d[free_q.tail] = deq_slot;
      end
      free_d.tail  = deq_slot;
      free_d.count = free_d.count + cnt_t'(1);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      queue_q <= '0;
      free_q  <= InitFree;
      next_q  <= InitNext;
    end else begin
      queue_q <= queue_d;
      free_q  <= free_d;
      next_q  <= next_d;
    end
  end

  // Data needs no reset: a slot is only read after an enqueue wrote it.
  always_ff @(posedge clk_i) begin
    if (enq_fire) begin
      data_q[enq_slot] <= enq_data_i;
    end
  end

  always_comb begin
    for (int unsigned q = 0; q < NumQueues; q++) begin
      queue_count_o[q] = queue_q[q].count;
      queue_empty_o[q] = (queue_q[q].count == '0);
    end
  end

  assign free_count_o  = free_q.count;
  assign full_o        = (free_q.count == '0);
  assign almost_full_o = (32'(free_q.count) <= AlmostFullSlots);

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  // Shadow ownership map, verification only: a slot is set while it is in a
  // queue. It catches a corrupted free list (handing out a slot that holds
  // data) or a leak at the first wrong step, long before data would come out
  // in the wrong order.
  logic [NumSlots-1:0] owned_q, owned_d;
  int unsigned slots_in_queues;

  always_comb begin
    owned_d = owned_q;
    if (deq_fire) owned_d[deq_slot] = 1'b0;
    if (enq_fire) owned_d[enq_slot] = 1'b1;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      owned_q <= '0;
    end else begin
      owned_q <= owned_d;
    end
  end

  always_comb begin
    slots_in_queues = 0;
    for (int unsigned q = 0; q < NumQueues; q++) begin
      slots_in_queues += 32'(queue_q[q].count);
    end
  end

  // Interface rules.
  // verilog_format: off
  `SF_ASSERT(a_enq_queue_in_range, enq_valid_i |-> enq_queue_ok)
  `SF_ASSERT(a_deq_queue_in_range, deq_valid_i |-> deq_queue_ok)
  `SF_ASSERT(a_enq_data_known, enq_valid_i |-> !$isunknown(enq_data_i))
  `SF_ASSERT(a_deq_data_known, deq_ready_o |-> !$isunknown(deq_data_o))

  // Accounting: every slot is in exactly one list.
  `SF_ASSERT(a_slots_conserved, 32'(free_q.count) + slots_in_queues == NumSlots)
  `SF_ASSERT(a_free_count_in_range, free_q.count <= AllSlots)
  `SF_ASSERT(a_owned_matches_count, 32'($countones(owned_q)) == slots_in_queues)
  `SF_ASSERT(a_enq_slot_is_free, enq_fire |-> !owned_q[enq_slot])
  `SF_ASSERT(a_deq_slot_is_owned, deq_fire |-> owned_q[deq_slot])
  `SF_ASSERT(a_free_one_is_head_tail, free_q.count == cnt_t'(1) |-> free_q.head == free_q.tail)
  `SF_ASSERT(a_free_ptrs_in_range, 32'(free_q.head) < NumSlots && 32'(free_q.tail) < NumSlots)
  `SF_ASSERT(a_free_count_step,
             1'b1 |=> free_q.count == $past(free_q.count) - cnt_t'($past(enq_fire))
                                                          + cnt_t'($past(deq_fire)))

  // Flags.
  `SF_ASSERT(a_ready_iff_not_full, enq_ready_o == !full_o)
  `SF_ASSERT(a_full_iff_no_free, full_o == (free_count_o == '0))
  `SF_ASSERT(a_full_is_almost_full, full_o |-> almost_full_o)
  `SF_ASSERT(a_no_enq_when_full, full_o |-> !enq_fire)
  // verilog_format: on

  for (genvar q = 0; q < NumQueues; q++) begin : gen_queue_rules
    logic enq_here, deq_here;
    assign enq_here = enq_fire && (32'(enq_queue_i) == q);
    assign deq_here = deq_fire && (32'(deq_queue_i) == q);

    // verilog_format: off
    `SF_ASSERT(a_count_in_range, queue_q[q].count <= AllSlots)
    `SF_ASSERT(a_empty_iff_zero, queue_empty_o[q] == (queue_count_o[q] == '0))
    `SF_ASSERT(a_no_deq_when_empty, queue_empty_o[q] && deq_valid_i && 32'(deq_queue_i) == q
                                    |-> !deq_ready_o)
    `SF_ASSERT(a_one_is_head_tail,
               queue_q[q].count == cnt_t'(1) |-> queue_q[q].head == queue_q[q].tail)
    `SF_ASSERT(a_ptrs_in_range, 32'(queue_q[q].head) < NumSlots && 32'(queue_q[q].tail) < NumSlots)
    `SF_ASSERT(a_count_step,
               1'b1 |=> queue_q[q].count == $past(queue_q[q].count) + cnt_t'($past(enq_here))
                                                                    - cnt_t'($past(deq_here)))
    // verilog_format: on
  end
`endif  // SYNTHESIS

endmodule
