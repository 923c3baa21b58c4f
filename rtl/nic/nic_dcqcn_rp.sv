// DCQCN reaction point of the bulk sender: every flow's rate state and the
// rate law of docs/nic/dcqcn.md §5 (bit-exact fixed point), §7's structure.
//
// Per flow: RC, RT, alpha, the alpha timer, the rate timer, the byte count
// and the stages T and BC, in register arrays indexed by flow. Each flow has
// its own timer and increase logic (§7: the per-cycle updates touch every
// RUNNING entry each cycle); a CNP matches one flow per cycle at most, so the
// CNP update, with its 17 x 17 multiplier, is built once and steered to the
// flow the CNP names. A packet is granted to one flow per cycle at most.
//
// Events of cycle t (all land at the edge closing t, §7):
//   start_i     START of flow start_idx_i: its state becomes a new flow's
//               (RC = RT = RATE_LINE, alpha = ALPHA_ONE, counts and stages 0);
//               the flow is not RUNNING in t (the flow table makes it
//               RUNNING from t + 1).
//   cnp_i       a CNP matched RUNNING flow cnp_idx_i: the CNP update; that
//               flow's timers, byte count and stages restart, and the flits
//               of a packet granted to it in t are lost to the byte count.
//   grant_i     a DATA packet of grant_flits_i flits granted to flow
//               grant_idx_i: the flits join its byte count in t.
//   otherwise every RUNNING flow runs its timers and byte counter, and their
//   increase events (§5 "No CNP in cycle t"); a flow that is not RUNNING
//   keeps its state.
//
// The parameters (ALPHA_CFG, ALPHA_TIMER, RATE_TIMER, BYTE_COUNTER,
// RATE_STAGES, RATE_AI, RATE_HAI, RATE_MIN of rtl/nic/nic_dcqcn.rdl) are
// inputs, already range-checked by the register block; a change applies from
// the cycle it is seen in.
//
// Token bucket (§6): each flow's credit, in 2^-RATE_FRAC_BITS flits, capped
// at the cost of one packet C = (payload_flits_i + 1) << RATE_FRAC_BITS (the
// flow table's FLOW_CFG.PAYLOAD_FLITS of the entry, stable while it runs).
// START fills it to C; each cycle a RUNNING flow gains its RC as just updated
// (the cap applied after the grant's cost), and a packet granted while
// rp_enable_i is 1 costs C. tx_ok_o tells the arbiter which flows may start a
// packet: credit >= C, or any credit while rp_enable_i is 0.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_dcqcn_rp
  import syncfab_fmt_pkg::*;
#(
  localparam int unsigned FlowIdxW = (NUM_FLOWS > 1) ? $clog2(NUM_FLOWS) : 1,
  // RC, RT and the rate parameters: 0 .. RATE_LINE.
  localparam int unsigned RateW    = $clog2(RATE_LINE + 1),
  // alpha: 0 .. ALPHA_ONE.
  localparam int unsigned AlphaW   = $clog2(ALPHA_ONE + 1),
  // G_SHIFT: 1 .. the fraction bits of alpha.
  localparam int unsigned GShiftW  = $clog2($clog2(ALPHA_ONE) + 1),
  // ALPHA_TIMER.CYCLES, RATE_TIMER.CYCLES and BYTE_COUNTER.FLITS fill their
  // 32-bit registers (nic_dcqcn.rdl); its generated SV package does not exist.
  localparam int unsigned CyclesW  = 32,
  // T, BC and RATE_STAGES.F: 8 bits, the stages saturating at 255 (§5).
  localparam int unsigned StageW   = 8,
  localparam int unsigned FlitsW   = PKT_HDR_LEN_FLITS_W,
  // Credit: up to C + RATE_LINE, C < 2^(FlitsW + RATE_FRAC_BITS).
  localparam int unsigned CreditW  = FlitsW + RATE_FRAC_BITS + 1,
  // The byte count holds up to B - 1 plus the flits of the cycles in which
  // more than B flits arrived; one bit over B's width (see a_bcnt_fits).
  localparam int unsigned ByteCntW = CyclesW + 1
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  // Parameters (one set for all flows).
  input  logic [ GShiftW-1:0]                  g_shift_i,       // G, 1 .. 16
  input  logic [ CyclesW-1:0]                  alpha_timer_i,   // K, >= 1
  input  logic [ CyclesW-1:0]                  rate_timer_i,    // TP, >= 1
  input  logic [ CyclesW-1:0]                  byte_counter_i,  // B, >= 1
  input  logic [  StageW-1:0]                  stages_i,        // F
  input  logic [   RateW-1:0]                  rate_ai_i,       // R_AI, 1 .. RATE_LINE
  input  logic [   RateW-1:0]                  rate_hai_i,      // R_HAI, 1 .. RATE_LINE
  input  logic [   RateW-1:0]                  rate_min_i,      // R_MIN, 1 .. RATE_LINE
  input  logic                                 rp_enable_i,     // CTRL.RP_ENABLE
  // Flow table.
  input  logic [NUM_FLOWS-1:0]                 running_i,
  input  logic [NUM_FLOWS-1:0][  FlitsW-1:0]   payload_flits_i,  // 1 .. DATA_MAX_PAYLOAD_FLITS
  input  logic                                 start_i,
  input  logic [FlowIdxW-1:0]                  start_idx_i,
  // Matched CNP and granted DATA packet of this cycle.
  input  logic                                 cnp_i,
  input  logic [FlowIdxW-1:0]                  cnp_idx_i,
  input  logic                                 grant_i,
  input  logic [FlowIdxW-1:0]                  grant_idx_i,
  input  logic [  FlitsW-1:0]                  grant_flits_i,
  // Every flow's state (FLOW_RATE, FLOW_TARGET, FLOW_ALPHA).
  output logic [NUM_FLOWS-1:0][   RateW-1:0]   rc_o,
  output logic [NUM_FLOWS-1:0][   RateW-1:0]   rt_o,
  output logic [NUM_FLOWS-1:0][  AlphaW-1:0]   alpha_o,
  output logic [NUM_FLOWS-1:0][  StageW-1:0]   t_stage_o,
  output logic [NUM_FLOWS-1:0][  StageW-1:0]   bc_stage_o,
  // Token bucket.
  output logic [NUM_FLOWS-1:0][ CreditW-1:0]   credit_o,
  output logic [NUM_FLOWS-1:0]                 tx_ok_o
);

  localparam logic [RateW-1:0] Line = RateW'(RATE_LINE);
  localparam logic [AlphaW-1:0] AlphaOne = AlphaW'(ALPHA_ONE);
  localparam logic [StageW-1:0] StageMax = '1;
  // R_HAI * i: RateW x StageW bits; RT + that one bit more.
  localparam int unsigned StepW = RateW + StageW;
  localparam int unsigned SumW = StepW + 1;
  // RC * alpha; the CNP's cut is that >> (RATE_FRAC_BITS + 1): RC * alpha / 2.
  localparam int unsigned ProdW = RateW + AlphaW;
  localparam int unsigned CutShift = RATE_FRAC_BITS + 1;

  logic [NUM_FLOWS-1:0][RateW-1:0] rc_q, rc_d, rt_q, rt_d;
  logic [NUM_FLOWS-1:0][AlphaW-1:0] alpha_q, alpha_d;
  logic [NUM_FLOWS-1:0][CyclesW-1:0] atimer_q, atimer_d, rtimer_q, rtimer_d;
  logic [NUM_FLOWS-1:0][ByteCntW-1:0] bcnt_q, bcnt_d;
  logic [NUM_FLOWS-1:0][StageW-1:0] t_q, t_d, bc_q, bc_d;
  logic [NUM_FLOWS-1:0] bcnt_carry;
  logic [NUM_FLOWS-1:0][CreditW-1:0] credit_q, credit_d, cap;

  // ---- the CNP update, once, on the flow the CNP names ----------------------
  logic [RateW-1:0] cnp_rc, cnp_rc_new, cnp_cut;
  logic [AlphaW-1:0] cnp_alpha, cnp_alpha_new;
  logic [   ProdW-1:0] cnp_prod;
  logic [AlphaW:0] cnp_alpha_sum;  // one bit over, see a_cnp_alpha_le_one

  assign cnp_rc = rc_q[cnp_idx_i];
  assign cnp_alpha = alpha_q[cnp_idx_i];
  assign cnp_prod = ProdW'(cnp_rc) * ProdW'(cnp_alpha);
  // RC * alpha <= 2^32, so the cut is at most 2^15 and fits in RateW.
  assign cnp_cut = RateW'(cnp_prod >> CutShift);
  always_comb begin
    logic [RateW-1:0] cut_rc;
    cut_rc = cnp_rc - cnp_cut;
    cnp_rc_new = (cut_rc < rate_min_i) ? rate_min_i : cut_rc;
  end
  always_comb begin
    logic [AlphaW-1:0] kept, gain;
    kept = cnp_alpha - (cnp_alpha >> g_shift_i);
    gain = AlphaOne >> g_shift_i;
    cnp_alpha_sum = {1'b0, kept} + {1'b0, gain};
  end
  assign cnp_alpha_new = AlphaW'(cnp_alpha_sum);

  // RT + step, capped at the line.
  function automatic logic [RateW-1:0] raise(logic [RateW-1:0] rt, logic [StepW-1:0] by);
    logic [SumW-1:0] sum;
    sum = SumW'(rt) + SumW'(by);
    return (sum > SumW'(Line)) ? Line : RateW'(sum);
  endfunction

  // RT after one increase event at stages t and bc: fast recovery, additive
  // or hyper increase (i = min(T, BC) - F).
  function automatic logic [RateW-1:0] increase(logic [RateW-1:0] rt, logic [StageW-1:0] t,
                                                logic [StageW-1:0] bc);
    logic [StageW-1:0] s_max, s_min, over;
    s_max = (t > bc) ? t : bc;
    s_min = (t > bc) ? bc : t;
    over = s_min - stages_i;
    if (s_max <= stages_i) begin
      return rt;
    end else if (s_min > stages_i) begin
      return raise(rt, StepW'(rate_hai_i) * StepW'(over));
    end
    return raise(rt, StepW'(rate_ai_i));
  endfunction

  // (a + b) >> 1 without losing the carry.
  function automatic logic [RateW-1:0] mean(logic [RateW-1:0] a, logic [RateW-1:0] b);
    logic [RateW:0] sum;
    sum = {1'b0, a} + {1'b0, b};
    return RateW'(sum >> 1);
  endfunction

  // ---- per flow: timers, byte counter and increase events --------------------
  for (genvar f = 0; f < NUM_FLOWS; f++) begin : g_flow
    logic cnp_here, start_here, grant_here;
    logic [CreditW-1:0] credit_left, credit_fill;
    logic [FlitsW-1:0] flits;
    logic [CyclesW:0] atimer_inc, rtimer_inc;
    logic alpha_tick, rate_tick, byte_tick;
    logic [  AlphaW-1:0] alpha_nc;
    logic [ByteCntW:0]   bcnt_sum;
    logic [ByteCntW-1:0] bcnt_nc;
    logic [StageW-1:0] t_nc, bc_nc, bc_1;
    logic [RateW-1:0] rt_1, rc_1, rt_2, rc_2;

    assign cnp_here = cnp_i && (cnp_idx_i == FlowIdxW'(f));
    assign start_here = start_i && (start_idx_i == FlowIdxW'(f));
    assign grant_here = grant_i && (grant_idx_i == FlowIdxW'(f));
    assign flits = grant_here ? grant_flits_i : '0;

    // 1. alpha timer; alpha decays each K cycles.
    assign atimer_inc = {1'b0, atimer_q[f]} + 1'b1;
    assign alpha_tick = atimer_inc >= {1'b0, alpha_timer_i};
    assign alpha_nc = alpha_tick ? alpha_q[f] - (alpha_q[f] >> g_shift_i) : alpha_q[f];
    // 2. rate timer: a timer stage and an increase event each TP cycles.
    assign rtimer_inc = {1'b0, rtimer_q[f]} + 1'b1;
    assign rate_tick = rtimer_inc >= {1'b0, rate_timer_i};
    assign t_nc = (rate_tick && t_q[f] != StageMax) ? t_q[f] + 1'b1 : t_q[f];
    // 3. byte counter, with this cycle's flits: one stage per cycle at most.
    assign bcnt_sum = {1'b0, bcnt_q[f]} + (ByteCntW + 1)'(flits);
    assign bcnt_carry[f] = bcnt_sum[ByteCntW];
    assign byte_tick = bcnt_sum >= (ByteCntW + 1)'(byte_counter_i);
    assign bcnt_nc = ByteCntW'(byte_tick ? bcnt_sum - (ByteCntW + 1)'(byte_counter_i) : bcnt_sum);
    assign bc_nc = (byte_tick && bc_q[f] != StageMax) ? bc_q[f] + 1'b1 : bc_q[f];

    // Increase events in the order of the steps (§5): the timer's event sees
    // T just updated and BC not yet, the byte counter's sees both updated.
    // With both in one cycle the byte counter's acts on the RT and RC the
    // timer's left.
    assign bc_1 = rate_tick ? bc_q[f] : bc_nc;
    assign rt_1 = (rate_tick || byte_tick) ? increase(rt_q[f], t_nc, bc_1) : rt_q[f];
    assign rc_1 = (rate_tick || byte_tick) ? mean(rt_1, rc_q[f]) : rc_q[f];
    assign rt_2 = (rate_tick && byte_tick) ? increase(rt_1, t_nc, bc_nc) : rt_1;
    assign rc_2 = (rate_tick && byte_tick) ? mean(rt_2, rc_1) : rc_1;

    // Token bucket, after the rate law of the same cycle.
    assign cap[f] = (CreditW'(payload_flits_i[f]) + CreditW'(1)) << RATE_FRAC_BITS;
    assign credit_left = (grant_here && rp_enable_i) ? credit_q[f] - cap[f] : credit_q[f];
    assign credit_fill = credit_left + CreditW'(rc_d[f]);
    assign tx_ok_o[f] = !rp_enable_i || credit_q[f] >= cap[f];
    always_comb begin
      credit_d[f] = credit_q[f];
      if (start_here) begin
        credit_d[f] = cap[f];
      end else if (running_i[f]) begin
        credit_d[f] = (credit_fill > cap[f]) ? cap[f] : credit_fill;
      end
    end

    always_comb begin
      rc_d[f] = rc_q[f];
      rt_d[f] = rt_q[f];
      alpha_d[f] = alpha_q[f];
      atimer_d[f] = atimer_q[f];
      rtimer_d[f] = rtimer_q[f];
      bcnt_d[f] = bcnt_q[f];
      t_d[f] = t_q[f];
      bc_d[f] = bc_q[f];
      if (start_here) begin
        rc_d[f] = Line;
        rt_d[f] = Line;
        alpha_d[f] = AlphaOne;
        atimer_d[f] = '0;
        rtimer_d[f] = '0;
        bcnt_d[f] = '0;
        t_d[f] = '0;
        bc_d[f] = '0;
      end else if (running_i[f] && cnp_here) begin
        rt_d[f] = rc_q[f];  // RT = the old RC
        rc_d[f] = cnp_rc_new;
        alpha_d[f] = cnp_alpha_new;  // from the old alpha
        atimer_d[f] = '0;
        rtimer_d[f] = '0;
        bcnt_d[f] = '0;
        t_d[f] = '0;
        bc_d[f] = '0;
      end else if (running_i[f]) begin
        rc_d[f] = rc_2;
        rt_d[f] = rt_2;
        alpha_d[f] = alpha_nc;
        atimer_d[f] = alpha_tick ? '0 : atimer_inc[CyclesW-1:0];
        rtimer_d[f] = rate_tick ? '0 : rtimer_inc[CyclesW-1:0];
        bcnt_d[f] = bcnt_nc;
        t_d[f] = t_nc;
        bc_d[f] = bc_nc;
      end
    end
  end : g_flow

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
        rc_q[f] <= Line;
        rt_q[f] <= Line;
        alpha_q[f] <= AlphaOne;
      end
      atimer_q <= '0;
      rtimer_q <= '0;
      credit_q <= '0;
      bcnt_q <= '0;
      t_q <= '0;
      bc_q <= '0;
    end else begin
      rc_q <= rc_d;
      rt_q <= rt_d;
      alpha_q <= alpha_d;
      atimer_q <= atimer_d;
      credit_q <= credit_d;
      rtimer_q <= rtimer_d;
      bcnt_q <= bcnt_d;
      t_q <= t_d;
      bc_q <= bc_d;
    end
  end

  assign rc_o = rc_q;
  assign rt_o = rt_q;
  assign alpha_o = alpha_q;
  assign t_stage_o = t_q;
  assign bc_stage_o = bc_q;
  assign credit_o = credit_q;

  // ---- rules this block relies on ---------------------------------------------
  // Inputs: the flow table and the register block keep these.
  `NIC_ASSERT_IMP(a_cnp_running, cnp_i, running_i[cnp_idx_i])
  `NIC_ASSERT_IMP(a_grant_running, grant_i, running_i[grant_idx_i])
  `NIC_ASSERT_IMP(a_start_not_running, start_i, !running_i[start_idx_i])
  // The arbiter grants only a flow its bucket lets send, a whole packet of
  // its payload and header.
  `NIC_ASSERT_IMP(a_grant_tx_ok, grant_i, tx_ok_o[grant_idx_i])
  `NIC_ASSERT_IMP(a_grant_flits, grant_i,
                  {1'b0, grant_flits_i} == {1'b0, payload_flits_i[grant_idx_i]} + 1'b1)
  `NIC_ASSERT(a_g_shift_in_range, g_shift_i >= 1 && 32'(g_shift_i) <= $clog2(ALPHA_ONE))
  `NIC_ASSERT(a_periods_nonzero, alpha_timer_i != '0 && rate_timer_i != '0 && byte_counter_i != '0)
  `NIC_ASSERT(a_rate_ai_in_range, rate_ai_i != '0 && rate_ai_i <= Line)
  `NIC_ASSERT(a_rate_hai_in_range, rate_hai_i != '0 && rate_hai_i <= Line)
  `NIC_ASSERT(a_rate_min_in_range, rate_min_i != '0 && rate_min_i <= Line)
  // The CNP update keeps alpha within 0 .. ALPHA_ONE (its sum is one bit
  // wider than alpha only for this check) and RC within R_MIN .. RATE_LINE.
  `NIC_ASSERT_IMP(a_cnp_alpha_le_one, cnp_i, cnp_alpha_sum <= (AlphaW + 1)'(AlphaOne))
  `NIC_ASSERT_IMP(a_cnp_rc_in_range, cnp_i, cnp_rc_new >= rate_min_i && cnp_rc_new <= Line)
  // Every flow: rates at most the line, alpha at most 1.0,
  // and the byte count never wraps (a sender grants at most one flit per cycle
  // on average, far below B + 2^32 flits in any cycle).
  `NIC_ASSERT_FORALL(a_rate_le_line, 1'b1, i, NUM_FLOWS, 1'b1, rc_q[i] <= Line && rt_q[i] <= Line)
  `NIC_ASSERT_FORALL(a_alpha_le_one, 1'b1, i, NUM_FLOWS, 1'b1, alpha_q[i] <= AlphaOne)
  `NIC_ASSERT_FORALL(a_credit_le_cap, 1'b1, i, NUM_FLOWS, running_i[i], credit_q[i] <= cap[i])
  `NIC_ASSERT_FORALL(a_bcnt_fits, 1'b1, i, NUM_FLOWS, 1'b1, !bcnt_carry[i])

endmodule
