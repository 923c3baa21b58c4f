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
// Timing: mark_o / drop_o / ecn_o are combinational from the inputs and the
// LFSR state. The LFSR steps once in every cycle with req_i (whatever the
// decision, even when disabled), so the random sequence depends only on the
// number of enqueues, not on configuration; a cycle's decision uses the state
// before that cycle's step.

`include "syncfab_assert.svh"

module wred_ecn
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned QLenW    = 16,       // queue length width (cells)
  parameter int unsigned ProbW    = 8,        // Pmax = pmax_i / 2^ProbW
  parameter logic [WRED_LFSR_WIDTH-1:0] LfsrSeed = WRED_LFSR_WIDTH'('hACE1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             req_i,       // a packet is enqueued this cycle
  input  logic [QLenW-1:0] qlen_i,      // queue length at enqueue
  input  ecn_e             ecn_i,
  input  logic             lossless_i,  // PFC-enabled priority: never dropped
  input  logic             enable_i,
  input  logic [QLenW-1:0] kmin_i,
  input  logic [QLenW-1:0] kmax_i,
  input  logic [ProbW-1:0] pmax_i,
  output logic             mark_o,      // combinational, valid when req_i
  output logic             drop_o,      // combinational, valid when req_i
  output ecn_e             ecn_o        // CE when mark_o, else ecn_i
);

  `SF_STATIC_ASSERT(gen_qlen_width_check, QLenW >= 1 && QLenW <= 16)
  `SF_STATIC_ASSERT(gen_prob_width_check, ProbW >= 1 && ProbW <= WRED_LFSR_WIDTH)
  // Zero is the LFSR's lock-up state (lfsr.sv rejects it too; checked here so
  // the message names this block's parameter).
  `SF_STATIC_ASSERT(gen_lfsr_seed_check, LfsrSeed != '0)

  localparam int unsigned RandW = WRED_LFSR_WIDTH;
  localparam int unsigned ProdW = RandW + QLenW;  // exact width of either product

  typedef logic [QLenW-1:0] qlen_t;
  typedef logic [RandW-1:0] rand_t;
  typedef logic [ProdW-1:0] prod_t;

  // ---------------------------------------------------------------------------
  // Random number
  // ---------------------------------------------------------------------------
  rand_t rnd;

  lfsr #(
    .Width (RandW),
    .Seed  (LfsrSeed)
  ) u_lfsr (
    .clk_i,
    .rst_ni,
    .en_i         (req_i),
    .seed_valid_i (1'b0),
    .seed_i       ('0),
    .state_o      (rnd)
  );

  // ---------------------------------------------------------------------------
  // Selection
  // ---------------------------------------------------------------------------
  logic below_kmin, at_or_above_kmax;
  qlen_t span, excess;  // Kmax - Kmin and qlen - Kmin, used only in the linear region
  rand_t pmax_scaled;  // Pmax as a RandW-bit fraction, comparable with rnd
  prod_t rnd_term, prob_term;
  logic linear_hit, hit;

  assign below_kmin       = (qlen_i < kmin_i);
  assign at_or_above_kmax = (qlen_i >= kmax_i);

  // In the linear region kmin_i <= qlen_i < kmax_i, so both differences are
  // non-negative and span is at least 1. Outside it they may wrap, but then
  // linear_hit is not used.
  assign span   = kmax_i - kmin_i;
  assign excess = qlen_i - kmin_i;

  // pmax_i has ProbW <= RandW bits, so shifting it up to the top of RandW bits
  // loses nothing (for ProbW = RandW the shift is 0).
  assign pmax_scaled = rand_t'(pmax_i) << (RandW - ProbW);

  // Each operand is widened to the product width before multiplying, so both
  // products are exact: (2^16 - 1) * (2^QLenW - 1) < 2^ProdW.
  assign rnd_term   = prod_t'(rnd) * prod_t'(span);
  assign prob_term  = prod_t'(pmax_scaled) * prod_t'(excess);
  assign linear_hit = (rnd_term < prob_term);

  // The rules in the spec's order: disabled, below Kmin, at/above Kmax (which
  // also covers Kmax <= Kmin), linear region.
  always_comb begin
    if (!enable_i || below_kmin) begin
      hit = 1'b0;
    end else if (at_or_above_kmax) begin
      hit = 1'b1;
    end else begin
      hit = linear_hit;
    end
  end

  // ---------------------------------------------------------------------------
  // Action
  // ---------------------------------------------------------------------------
  logic ect;  // ECN-capable transport (ECT(0), ECT(1) or already CE)

  assign ect = (ecn_i != EcnNotEct);

  assign mark_o = req_i && hit && ect;
  assign drop_o = req_i && hit && !ect && !lossless_i;
  assign ecn_o  = mark_o ? EcnCe : ecn_i;

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  `SF_ASSERT_KNOWN(a_req_known, req_i)
  // verilog_format: off
  `SF_ASSERT(a_inputs_known,
             req_i |-> !$isunknown({qlen_i, ecn_i, lossless_i, enable_i, kmin_i, kmax_i, pmax_i}))
  `SF_ASSERT(a_outputs_known, req_i |-> !$isunknown({mark_o, drop_o, ecn_o}))

  // The white paper's invariants.
  `SF_ASSERT_NEVER(a_no_lossless_drop, drop_o && lossless_i)
  `SF_ASSERT(a_ce_never_unmarked, ecn_i == EcnCe |-> ecn_o == EcnCe)
  `SF_ASSERT(a_mark_only_ect, mark_o |-> ect)
  `SF_ASSERT(a_drop_only_not_ect, drop_o |-> !ect)
  `SF_ASSERT_NEVER(a_mark_and_drop, mark_o && drop_o)
  `SF_ASSERT(a_marked_is_ce, mark_o |-> ecn_o == EcnCe)
  `SF_ASSERT(a_unmarked_passes_ecn, !mark_o |-> ecn_o == ecn_i)
  `SF_ASSERT(a_idle_no_action, !req_i |-> !mark_o && !drop_o)
  `SF_ASSERT(a_disabled_no_action, !enable_i |-> !mark_o && !drop_o)

  // Curve: nothing below Kmin, nothing exactly at Kmin unless Kmax <= Kmin
  // (the linear term is 0 there), everything from Kmax on.
  `SF_ASSERT(a_none_below_kmin, qlen_i < kmin_i |-> !mark_o && !drop_o)
  `SF_ASSERT(a_none_at_kmin, qlen_i == kmin_i && kmin_i < kmax_i |-> !mark_o && !drop_o)
  `SF_ASSERT(a_all_from_kmax_ect,
             req_i && enable_i && ect && qlen_i >= kmin_i && qlen_i >= kmax_i |-> mark_o)
  `SF_ASSERT(a_all_from_kmax_not_ect,
             req_i && enable_i && !ect && !lossless_i && qlen_i >= kmin_i && qlen_i >= kmax_i
             |-> drop_o)
  // Pmax = 0 turns the linear region off.
  `SF_ASSERT(a_pmax_zero_no_linear,
             pmax_i == '0 && qlen_i < kmax_i |-> !mark_o && !drop_o)
  // verilog_format: on

  // Random number: steps exactly in cycles with req_i.
  `SF_ASSERT(a_lfsr_holds_when_idle, !req_i |=> $stable(rnd))
  `SF_ASSERT(a_lfsr_steps_on_req, req_i |=> rnd != $past(rnd))
`endif  // SYNTHESIS

endmodule
