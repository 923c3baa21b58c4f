// WRED/ECN decision at egress enqueue (white paper, ECN section; exact rules in
// the switch-egress spec, decisions in docs/switch-egress.md).
//
// For each enqueued packet (req_i) the queue length at enqueue selects the
// packet ("hit") with a probability that is 0 below Kmin, rises linearly from
// 0 at Kmin to Pmax just below Kmax, and is 1 at or above Kmax. A selected
// ECN-capable packet is marked CE; a selected Not-ECT packet is dropped unless
// its priority is lossless (PFC-enabled), because dropping there would break
// the zero-loss promise that PFC makes. CE packets stay CE.
//
// The probability comes from comparing two products instead of dividing:
//   r * (Kmax - Kmin)  <  (Pmax << (16 - ProbW)) * (qlen - Kmin)
// with r the 16-bit LFSR state (WRED_LFSR_WIDTH), uniform over 1..2^16-1.
// The comparison is exact at full width (16 + QLenW bits per side), so the
// hit rate over the LFSR period is exactly what the C++ golden model
// computes with the same sequence: the co-simulation compares decisions
// packet by packet.
//
// Lanes. NumReq requests may come in one cycle (the switch enqueues all the
// copies of a packet at once, one lane per output); they are decided as if
// one after the other in lane order: the LFSR steps once per request, and
// lane r's decision uses the state the requests of the lanes below it left
// (a chain of one-step functions, combinational). With NumReq = 1 this is
// one decision per cycle from the state before the cycle's step.
//
// Timing: mark_o / drop_o / ecn_o are combinational from the inputs and the
// LFSR state. The LFSR steps once per request (whatever the decision, even
// when disabled), so the random sequence depends only on the number of
// enqueues, not on configuration.

`include "syncfab_assert.svh"

module wred_ecn
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned QLenW    = 16,       // queue length width (cells)
  parameter int unsigned ProbW    = 8,        // Pmax = pmax_i / 2^ProbW
  parameter logic [WRED_LFSR_WIDTH-1:0] LfsrSeed = WRED_LFSR_WIDTH'('hACE1),
  parameter int unsigned NumReq   = 1         // requests per cycle, decided in lane order
) (
  input  logic                         clk_i,
  input  logic                         rst_ni,
  input  logic [NumReq-1:0]            req_i,       // a packet is enqueued in this lane
  input  logic [NumReq-1:0][QLenW-1:0] qlen_i,      // queue length at enqueue
  input  ecn_e [NumReq-1:0]            ecn_i,
  input  logic [NumReq-1:0]            lossless_i,  // PFC-enabled priority: never dropped
  input  logic [NumReq-1:0]            enable_i,
  input  logic [NumReq-1:0][QLenW-1:0] kmin_i,
  input  logic [NumReq-1:0][QLenW-1:0] kmax_i,
  input  logic [NumReq-1:0][ProbW-1:0] pmax_i,
  output logic [NumReq-1:0]            mark_o,      // combinational, valid with req_i
  output logic [NumReq-1:0]            drop_o,      // combinational, valid with req_i
  output ecn_e [NumReq-1:0]            ecn_o        // CE when mark_o, else ecn_i
);

  `SF_STATIC_ASSERT(gen_qlen_width_check, QLenW >= 1 && QLenW <= 16)
  `SF_STATIC_ASSERT(gen_prob_width_check, ProbW >= 1 && ProbW <= WRED_LFSR_WIDTH)
  `SF_STATIC_ASSERT(gen_num_req_check, NumReq >= 1)
  // Zero is the LFSR's lock-up state.
  `SF_STATIC_ASSERT(gen_lfsr_seed_check, LfsrSeed != '0)

  localparam int unsigned RandW = WRED_LFSR_WIDTH;
  localparam int unsigned ProdW = RandW + QLenW;  // exact width of either product
  // The Galois toggle mask of WRED_LFSR_WIDTH (formats.toml; rtl/common/lfsr.sv's
  // table and the golden model's WredEcn use the same one).
  localparam logic [RandW-1:0] LfsrMask = RandW'('hD008);
  `SF_STATIC_ASSERT(gen_lfsr_width_check, RandW == 16)

  typedef logic [QLenW-1:0] qlen_t;
  typedef logic [RandW-1:0] rand_t;
  typedef logic [ProdW-1:0] prod_t;

  // ---------------------------------------------------------------------------
  // Random numbers: rnd[r] is lane r's, the state after one step per request
  // of the lanes below r; rnd_d is the next state. One process walks the
  // lanes: a chain through one vector is a combinational loop in the
  // simulator's eyes (UNOPTFLAT).
  // ---------------------------------------------------------------------------
  function automatic rand_t lfsr_step(rand_t x);
    return (x >> 1) ^ (x[0] ? LfsrMask : '0);
  endfunction

  rand_t rnd_q, rnd_d;
  rand_t [NumReq-1:0] rnd;
  always_comb begin
    rand_t x;
    x = rnd_q;
    for (int r = 0; r < NumReq; r++) begin
      rnd[r] = x;
      if (req_i[r]) x = lfsr_step(x);
    end
    rnd_d = x;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rnd_q <= LfsrSeed;
    else rnd_q <= rnd_d;
  end

  // ---------------------------------------------------------------------------
  // Selection and action, per lane
  // ---------------------------------------------------------------------------
  logic [NumReq-1:0] hit, ect;
  for (genvar r = 0; r < NumReq; r++) begin : gen_lane
    logic below_kmin, at_or_above_kmax;
    qlen_t span, excess;  // Kmax - Kmin and qlen - Kmin, used only in the linear region
    rand_t pmax_scaled;  // Pmax as a RandW-bit fraction, comparable with rnd
    prod_t rnd_term, prob_term;
    logic linear_hit;

    assign below_kmin       = (qlen_i[r] < kmin_i[r]);
    assign at_or_above_kmax = (qlen_i[r] >= kmax_i[r]);

    // In the linear region kmin_i <= qlen_i < kmax_i, so both differences are
    // non-negative and span is at least 1. Outside it they may wrap, but then
    // linear_hit is not used.
    assign span   = kmax_i[r] - kmin_i[r];
    assign excess = qlen_i[r] - kmin_i[r];

    // pmax_i has ProbW <= RandW bits, so shifting it up to the top of RandW bits
    // loses nothing (for ProbW = RandW the shift is 0).
    assign pmax_scaled = rand_t'(pmax_i[r]) << (RandW - ProbW);

    // Each operand is widened to the product width before multiplying, so both
    // products are exact: (2^16 - 1) * (2^QLenW - 1) < 2^ProdW.
    assign rnd_term   = prod_t'(rnd[r]) * prod_t'(span);
    assign prob_term  = prod_t'(pmax_scaled) * prod_t'(excess);
    assign linear_hit = (rnd_term < prob_term);

    // The rules in the spec's order: disabled, below Kmin, at/above Kmax (which
    // also covers Kmax <= Kmin), linear region.
    always_comb begin
      if (!enable_i[r] || below_kmin) begin
        hit[r] = 1'b0;
      end else if (at_or_above_kmax) begin
        hit[r] = 1'b1;
      end else begin
        hit[r] = linear_hit;
      end
    end

    // ECN-capable transport (ECT(0), ECT(1) or already CE)
    assign ect[r] = (ecn_i[r] != EcnNotEct);
    assign mark_o[r] = req_i[r] && hit[r] && ect[r];
    assign drop_o[r] = req_i[r] && hit[r] && !ect[r] && !lossless_i[r];
    assign ecn_o[r]  = mark_o[r] ? EcnCe : ecn_i[r];
  end

  // ---------------------------------------------------------------------------
  // Rules, one per lane each (immediate forms, one process per rule over the
  // lanes: the switch has a lane per output and simulates fast)
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  `SF_ASSERT_IMM_KNOWN(a_req_known, req_i)
  // verilog_format: off
  `SF_ASSERT_IMM_FORALL(a_inputs_known, req_i != '0, r, NumReq, req_i[r],
      !$isunknown({qlen_i[r], ecn_i[r], lossless_i[r], enable_i[r], kmin_i[r], kmax_i[r],
                   pmax_i[r]}))
  `SF_ASSERT_IMM_FORALL(a_outputs_known, req_i != '0, r, NumReq, req_i[r],
                        !$isunknown({mark_o[r], drop_o[r], ecn_o[r]}))

  // The white paper's invariants.
  `SF_ASSERT_IMM(a_no_lossless_drop, (drop_o & lossless_i) == '0)
  `SF_ASSERT_IMM(a_mark_and_drop, (mark_o & drop_o) == '0)
  `SF_ASSERT_IMM(a_mark_only_ect, (mark_o & ~ect) == '0)
  `SF_ASSERT_IMM(a_drop_only_not_ect, (drop_o & ect) == '0)
  `SF_ASSERT_IMM(a_idle_no_action, ((mark_o | drop_o) & ~req_i) == '0)
  `SF_ASSERT_IMM(a_disabled_no_action, ((mark_o | drop_o) & ~enable_i) == '0)
  `SF_ASSERT_IMM_FORALL(a_ce_never_unmarked, 1'b1, r, NumReq, ecn_i[r] == EcnCe,
                        ecn_o[r] == EcnCe)
  `SF_ASSERT_IMM_FORALL(a_marked_is_ce, mark_o != '0, r, NumReq, mark_o[r], ecn_o[r] == EcnCe)
  `SF_ASSERT_IMM_FORALL(a_unmarked_passes_ecn, 1'b1, r, NumReq, !mark_o[r], ecn_o[r] == ecn_i[r])

  // Curve: nothing below Kmin, nothing exactly at Kmin unless Kmax <= Kmin
  // (the linear term is 0 there), everything from Kmax on.
  `SF_ASSERT_IMM_FORALL(a_none_below_kmin, req_i != '0, r, NumReq, qlen_i[r] < kmin_i[r],
                        !mark_o[r] && !drop_o[r])
  `SF_ASSERT_IMM_FORALL(a_none_at_kmin, req_i != '0, r, NumReq,
                        qlen_i[r] == kmin_i[r] && kmin_i[r] < kmax_i[r],
                        !mark_o[r] && !drop_o[r])
  `SF_ASSERT_IMM_FORALL(a_all_from_kmax_ect, req_i != '0, r, NumReq,
                        req_i[r] && enable_i[r] && ect[r] && qlen_i[r] >= kmin_i[r] &&
                        qlen_i[r] >= kmax_i[r], mark_o[r])
  `SF_ASSERT_IMM_FORALL(a_all_from_kmax_not_ect, req_i != '0, r, NumReq,
                        req_i[r] && enable_i[r] && !ect[r] && !lossless_i[r] &&
                        qlen_i[r] >= kmin_i[r] && qlen_i[r] >= kmax_i[r], drop_o[r])
  // Pmax = 0 turns the linear region off.
  `SF_ASSERT_IMM_FORALL(a_pmax_zero_no_linear, req_i != '0, r, NumReq,
                        pmax_i[r] == '0 && qlen_i[r] < kmax_i[r], !mark_o[r] && !drop_o[r])

  // Random numbers: never the lock-up state; the state holds in a cycle
  // without a request and moves in one with requests (fewer than the
  // period); a lane without a request leaves the next lane the same state.
  `SF_ASSERT_IMM(a_lfsr_never_locked_up, rnd_q != '0)
  `SF_ASSERT_IMM_IMP(a_lfsr_holds_when_idle, req_i == '0, rnd_d == rnd_q)
  `SF_ASSERT_IMM_IMP(a_lfsr_steps_on_req, req_i != '0, rnd_d != rnd_q)
  // Lane r sees the state after exactly the requests below it: a lane after
  // an idle one sees the same state, after a request the next one.
  if (NumReq > 1) begin : gen_chain_check
    `SF_ASSERT_IMM_FORALL(a_lfsr_lane_chain, 1'b1, r, NumReq - 1, 1'b1,
                          rnd[r+1] == (req_i[r] ? lfsr_step(rnd[r]) : rnd[r]))
  end
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
