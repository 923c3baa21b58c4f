// Egress scheduler: strict priority over a configurable set of queues, weighted
// deficit round robin (WDRR) over the rest (white paper, queue scheduling;
// exact rules in the switch-egress spec, decisions in docs/switch-egress.md).
//
// One packet is chosen per cycle. Strict-priority queues (sp_mask_i) always
// win, highest index first: they carry control and latency-critical traffic
// and are expected to be rate-limited upstream. The other queues share what is
// left in proportion to their weights: the round-robin pointer stays on a
// queue while its deficit covers its head packet; when it does not, the
// pointer moves to the next eligible queue and credits it one quantum
// (weight_i), and that queue may be granted in the same cycle. Counting the
// deficit in flits rather than packets is what makes the share fair for
// unequal packet lengths.
//
// Timing: the grant is combinational from the inputs and the registered
// pointer/deficits, and is shown even while ready_i = 0 (a monitor can see the
// pending choice). State changes only at edges with ready_i = 1, so a grant
// that the output does not take costs nothing and is offered again.
//
// Deficit range: the pointer's queue ends a cycle with a deficit of at most
// (max length - 1) + (max weight - 1) (it is credited only when its deficit is
// below its head length, and a credit that reaches the head length is spent at
// once); every other queue keeps less than one maximal packet. The registers
// are LenW + WeightW + 1 bits as the spec fixes (the golden model has the same
// width); a_deficit_bounded checks the tighter bound, which also catches any
// underflow.

`include "syncfab_assert.svh"

module sp_wdrr_sched #(
  parameter int unsigned NumQ    = 8,
  parameter int unsigned LenW    = 8,   // head packet length in flits, >= 1
  parameter int unsigned WeightW = 8,   // WDRR quantum in flits, >= 1
  localparam int unsigned QIdxW = (NumQ > 1) ? $clog2(NumQ) : 1
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic [NumQ-1:0]              q_valid_i,   // queue has a packet and may send
  input  logic [NumQ-1:0][LenW-1:0]    q_len_i,     // head length (flits) of each valid queue
  input  logic [NumQ-1:0]              sp_mask_i,   // queues served by strict priority
  input  logic [NumQ-1:0][WeightW-1:0] weight_i,    // quantum of each WDRR queue
  input  logic                         ready_i,     // the output takes a granted packet
  output logic                         grant_valid_o,
  output logic [QIdxW-1:0]             grant_q_o    // 0 when no grant
);

  `SF_STATIC_ASSERT(gen_num_q_check, NumQ >= 1)
  `SF_STATIC_ASSERT(gen_len_width_check, LenW >= 1)
  `SF_STATIC_ASSERT(gen_weight_width_check, WeightW >= 1)
  // Keeps the deficit and its bound inside the 32-bit arithmetic of the checks.
  `SF_STATIC_ASSERT(gen_deficit_width_check, LenW + WeightW + 1 <= 31)

  localparam int unsigned DefW = LenW + WeightW + 1;

  typedef logic [QIdxW-1:0] qidx_t;
  typedef logic [DefW-1:0] def_t;

  localparam def_t MaxLen = def_t'((64'(1) << LenW) - 64'(1));
  localparam def_t MaxWeight = def_t'((64'(1) << WeightW) - 64'(1));

  qidx_t ptr_q, ptr_d;
  def_t [NumQ-1:0] deficit_q, deficit_d;

  logic  [NumQ-1:0]     sp_req;    // valid strict-priority queues
  logic  [NumQ-1:0]     wdrr_req;  // W: valid WDRR queues
  logic  [NumQ-1:0]     grant_oh;  // the grant as a one-hot vector (checks only)

  assign sp_req   = q_valid_i & sp_mask_i;
  assign wdrr_req = q_valid_i & ~sp_mask_i;

  // Widening helpers: lengths and weights enter deficit arithmetic at DefW
  // bits, so a sum or a compare never truncates.
  function automatic def_t len_of(int unsigned q);
    return def_t'(q_len_i[q]);
  endfunction

  function automatic def_t weight_of(int unsigned q);
    return def_t'(weight_i[q]);
  endfunction

  // Grant and next state, following the spec's steps 1-4. The loops are over
  // NumQ (a handful of queues): linear scans read more plainly than priority
  // encoders and synthesise to the same logic.
  always_comb begin
    int unsigned ptr, nxt, cand;
    logic sp_any, wdrr_any, found;
    def_t credited;

    grant_valid_o = 1'b0;
    grant_q_o     = '0;
    grant_oh      = '0;
    ptr_d         = ptr_q;
    deficit_d     = deficit_q;

    ptr      = 32'(ptr_q);
    sp_any   = |sp_req;
    wdrr_any = |wdrr_req;
    nxt      = ptr;
    cand     = ptr;
    found    = 1'b0;
    credited = '0;

    if (sp_any) begin
      // 1. Strict priority: the highest valid SP queue (the last one found
      //    scanning upwards). WDRR state is left alone.
      for (int unsigned q = 0; q < NumQ; q++) begin
        if (sp_req[q]) begin
          nxt = q;
        end
      end
      grant_valid_o = 1'b1;
      grant_q_o     = qidx_t'(nxt);
    end else if (wdrr_any) begin
      if (wdrr_req[ptr] && deficit_q[ptr] >= len_of(ptr)) begin
        // 3. The pointer's queue still has credit for its head packet.
        grant_valid_o  = 1'b1;
        grant_q_o      = ptr_q;
        deficit_d[ptr] = deficit_q[ptr] - len_of(ptr);
      end else begin
        // 4. Move on. A queue the pointer leaves because it is no longer
        //    eligible forfeits its credit; one that is eligible but short of
        //    credit keeps it for its next turn.
        if (!wdrr_req[ptr]) begin
          deficit_d[ptr] = '0;
        end
        // First queue of W strictly after ptr, cyclically; ptr itself last
        // (W is not empty, so the scan always finds one).
        for (int unsigned off = 1; off <= NumQ; off++) begin
          cand = ptr + off;
          if (cand >= NumQ) begin
            cand -= NumQ;
          end
          if (!found && wdrr_req[cand]) begin
            found = 1'b1;
            nxt   = cand;
          end
        end
        // Credit the new queue from its old deficit (when nxt == ptr, ptr is
        // in W and was not zeroed above).
        credited = deficit_q[nxt] + weight_of(nxt);
        ptr_d    = qidx_t'(nxt);
        if (credited >= len_of(nxt)) begin
          grant_valid_o = 1'b1;
          grant_q_o     = qidx_t'(nxt);
          credited      = credited - len_of(nxt);
        end
        deficit_d[nxt] = credited;
      end
    end
    // 2. (W empty and no SP request): no grant, no state change.

    if (grant_valid_o) begin
      grant_oh[grant_q_o] = 1'b1;
    end

    // The state moves only when the output takes this cycle's decision.
    if (!ready_i) begin
      ptr_d     = ptr_q;
      deficit_d = deficit_q;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ptr_q     <= '0;
      deficit_q <= '0;
    end else begin
      ptr_q     <= ptr_d;
      deficit_q <= deficit_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  logic sp_granted, wdrr_granted;

  assign sp_granted   = grant_valid_o && ((grant_oh & sp_mask_i) != '0);
  assign wdrr_granted = grant_valid_o && ((grant_oh & ~sp_mask_i) != '0);

  `SF_ASSERT_KNOWN(a_ready_known, ready_i)
  `SF_ASSERT_KNOWN(a_valid_known, q_valid_i)
  `SF_ASSERT(a_inputs_known, q_valid_i != '0 |-> !$isunknown({sp_mask_i, q_len_i, weight_i}))
  `SF_ASSERT_KNOWN(a_grant_known, {grant_valid_o, grant_q_o})

  // Grant shape: at most one queue, a valid one, named by a legal index.
  `SF_ASSERT_ONEHOT0(a_grant_onehot0, grant_oh)
  `SF_ASSERT(a_grant_oh_matches, (grant_oh != '0) == grant_valid_o)
  `SF_ASSERT(a_grant_idx_in_range, 32'(grant_q_o) < NumQ)
  `SF_ASSERT(a_grant_only_valid, (grant_oh & ~q_valid_i) == '0)
  `SF_ASSERT(a_grant_idx_zero_when_idle, !grant_valid_o |-> grant_q_o == '0)
  `SF_ASSERT(a_no_grant_when_idle, q_valid_i == '0 |-> !grant_valid_o)

  // Strict priority before WDRR, highest SP index first.
  `SF_ASSERT(a_sp_always_granted, sp_req != '0 |-> sp_granted)
  `SF_ASSERT(a_sp_highest_first, sp_granted |-> (sp_req >> grant_q_o) == NumQ'(1))
  `SF_ASSERT(a_wdrr_only_without_sp, wdrr_granted |-> sp_req == '0)
  `SF_ASSERT(a_sp_keeps_wdrr_state, sp_req != '0 |=> $stable(ptr_q) && $stable(deficit_q))

  // State moves only in taken cycles, and the pointer only onto a WDRR queue
  // that was eligible.
  `SF_ASSERT(a_hold_when_not_ready, !ready_i |=> $stable(ptr_q) && $stable(deficit_q))
  `SF_ASSERT(a_idle_keeps_state, q_valid_i == '0 |=> $stable(ptr_q) && $stable(deficit_q))
  `SF_ASSERT(a_ptr_in_range, 32'(ptr_q) < NumQ)
  `SF_ASSERT(a_ptr_moves_to_wdrr_queue, ptr_d != ptr_q |-> wdrr_req[ptr_d])
  `SF_ASSERT(a_wdrr_grant_is_ptr_next, wdrr_granted && ready_i |-> grant_q_o == ptr_d)

  // Per-queue rules, each checked for every queue at once: one named
  // assertion over NumQ-bit vectors (bit q is queue q) instead of one per
  // queue. A generate loop of NumQ copies costs Verilator (5.006) a check per
  // copy, evaluated on every clock edge; the vector form keeps the same
  // per-queue meaning at the cost of one. A failure names the rule; which
  // queue broke it is in the waveform.
  typedef logic [NumQ-1:0] qmask_t;

  function automatic qmask_t weight_nonzero(logic [NumQ-1:0][WeightW-1:0] w);
    qmask_t v;
    for (int unsigned q = 0; q < NumQ; q++) begin
      v[q] = (w[q] != '0);
    end
    return v;
  endfunction

  function automatic qmask_t len_nonzero(logic [NumQ-1:0][LenW-1:0] l);
    qmask_t v;
    for (int unsigned q = 0; q < NumQ; q++) begin
      v[q] = (l[q] != '0);
    end
    return v;
  endfunction

  // Each queue's deficit within its bound: the pointer's queue may hold up to
  // (max length - 1) + (max weight - 1), any other less than one maximal packet.
  function automatic qmask_t deficit_in_bound(def_t [NumQ-1:0] d, qidx_t ptr);
    qmask_t v;
    for (int unsigned q = 0; q < NumQ; q++) begin
      v[q] = d[q] <= ((32'(ptr) == q) ? MaxLen + MaxWeight - def_t'(2) : MaxLen - def_t'(1));
    end
    return v;
  endfunction

  // Configuration rules of the interface.
  `SF_ASSERT(a_weight_nonzero, (~sp_mask_i & ~weight_nonzero(weight_i)) == '0)
  `SF_ASSERT(a_len_nonzero, (q_valid_i & ~len_nonzero(q_len_i)) == '0)
  // Also catches an underflowing subtraction (it would wrap far above).
  `SF_ASSERT(a_deficit_bounded, &deficit_in_bound(deficit_q, ptr_q))
`endif  // SYNTHESIS

endmodule
