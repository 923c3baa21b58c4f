// Honouring received PFC frames for one egress port (IEEE 802.1Qbb semantics,
// white paper §3.1.2; exact rules in docs/switch-pfc.md, RTL decisions there
// too).
//
// A pause of q quanta for priority p loads p's timer with q x cycles-per-
// quantum; the timer counts down one per cycle and p is paused (xoff_o) while
// it is non-zero. A later frame for p replaces the remaining time (a resume,
// q = 0, clears it at once). The product is taken at its full width,
// PFC_FRAME_QUANTA_W + CpqW bits, so no pause the peer can express is
// shortened.
//
// The watchdog's ignore input masks only the stop towards the scheduler: the
// timer keeps running, so xoff_o keeps showing what the peer asked for, which
// is what the watchdog must see to tell a recovered queue from one that is
// still held.
//
// Timing: xoff_o is registered (timer != 0); stop_o and evt_* are
// combinational.

`include "syncfab_assert.svh"

module pfc_rx
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned NumPrio = 8,
  parameter int unsigned CpqW    = 8,    // cycles-per-quantum width
  // A pause time in quanta, as a PFC frame carries it.
  localparam type quanta_t = logic [PFC_FRAME_QUANTA_W-1:0]
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  // PFC enabled on p (frames for a disabled p are ignored)
  input  logic [NumPrio-1:0]            enable_i,
  input  logic [CpqW-1:0]               cyc_per_quantum_i, // >= 1
  // a PFC frame is received this cycle (always taken)
  input  logic                          frame_valid_i,
  input  logic [NumPrio-1:0]            frame_class_enable_i,
  input  quanta_t [NumPrio-1:0]         frame_quanta_i,
  // watchdog: ignore pause on p (recovery / PFC disabled)
  input  logic [NumPrio-1:0]            ignore_i,
  // registered: the peer holds p paused (timer != 0)
  output logic [NumPrio-1:0]            xoff_o,
  // comb: xoff_o && !ignore_i — p's egress queue may not send
  output logic [NumPrio-1:0]            stop_o,
  // comb: a pause (quanta > 0) for p is taken this cycle
  output logic [NumPrio-1:0]            evt_xoff_rx_o,
  // comb: a resume (quanta == 0) for p is taken this cycle
  output logic [NumPrio-1:0]            evt_xon_rx_o
);

  `SF_STATIC_ASSERT(gen_num_prio_check, NumPrio >= 1)
  `SF_STATIC_ASSERT(gen_cpq_width_check, CpqW >= 1)

  localparam int unsigned QW = $bits(quanta_t);

  // Exact width of quanta (QW bits) x cycles per quantum (CpqW bits):
  // (2^QW - 1) * (2^CpqW - 1) < 2^(QW + CpqW).
  localparam int unsigned TimerW = QW + CpqW;

  typedef logic [TimerW-1:0] timer_t;

  timer_t [NumPrio-1:0] timer_q, timer_d;  // cycles of pause left
  timer_t [NumPrio-1:0] load;              // frame_quanta_i[p] * cyc_per_quantum_i, exact
  logic   [NumPrio-1:0] hit;               // a frame for p is taken this cycle

  always_comb begin
    for (int unsigned p = 0; p < NumPrio; p++) begin
      hit[p] = frame_valid_i && frame_class_enable_i[p] && enable_i[p];
      // Both operands widened to the product width before multiplying.
      load[p] = timer_t'(frame_quanta_i[p]) * timer_t'(cyc_per_quantum_i);

      if (!enable_i[p]) begin
        timer_d[p] = '0;
      end else if (hit[p]) begin
        timer_d[p] = load[p];  // replaces, never adds; quanta 0 = resume
      end else if (timer_q[p] != '0) begin
        timer_d[p] = timer_q[p] - timer_t'(1);
      end else begin
        timer_d[p] = '0;
      end

      xoff_o[p]        = (timer_q[p] != '0);
      stop_o[p]        = xoff_o[p] && !ignore_i[p];
      evt_xoff_rx_o[p] = hit[p] && (frame_quanta_i[p] != '0);
      evt_xon_rx_o[p]  = hit[p] && (frame_quanta_i[p] == '0);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      timer_q <= '0;
    end else begin
      timer_q <= timer_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  // The checks recompute the product at twice the timer width, so a product
  // truncated anywhere in the design would differ from it.
  localparam int unsigned ChkW = 2 * TimerW;
  typedef logic [ChkW-1:0] chk_t;

  `SF_ASSERT_KNOWN(a_frame_valid_known, frame_valid_i)
  `SF_ASSERT_KNOWN(a_config_known, {enable_i, ignore_i})
  // verilog_format: off
  `SF_ASSERT(a_frame_known,
             frame_valid_i
             |-> !$isunknown({frame_class_enable_i, frame_quanta_i, cyc_per_quantum_i}))
  // verilog_format: on
  `SF_ASSERT_KNOWN(a_outputs_known, {xoff_o, stop_o, evt_xoff_rx_o, evt_xon_rx_o})

  // Interface rule: cycles per quantum >= 1 whenever a frame is taken.
  `SF_ASSERT(a_cpq_nonzero, frame_valid_i |-> cyc_per_quantum_i != '0)

  // Per-priority rules, each checked for every priority at once: one named
  // assertion over NumPrio-bit vectors (bit p is priority p) instead of one
  // per priority. A generate loop of NumPrio copies costs Verilator (5.006) a
  // check and a $past register per copy, evaluated and copied on every eval;
  // the vector form keeps the same per-priority meaning at the cost of one.
  // A failure names the rule; which priority broke it is in the waveform
  // (the rule's terms are per-priority vectors there). An implication
  // `a[p] |-> b[p]` is written `(a & ~b) == '0`; `a[p] |=> b[p]` is written
  // `1'b1 |=> ($past(a) & ~b) == '0` (the attempt starts every cycle out of
  // reset, so `disable iff` and $past give exactly the per-priority meaning).
  //
  // The per-priority terms, from the sampled values the rules are given
  // (functions, not signals: they are evaluated only in the checks).
  typedef logic [NumPrio-1:0] prio_t;

  function automatic prio_t timer_nonzero(timer_t [NumPrio-1:0] t);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (t[p] != '0);
    end
    return v;
  endfunction

  function automatic prio_t quanta_nonzero(quanta_t [NumPrio-1:0] q);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (q[p] != '0);
    end
    return v;
  endfunction

  // The timer holds exactly quanta x cpq (product recomputed at ChkW bits).
  function automatic prio_t timer_is_load(timer_t [NumPrio-1:0] t, quanta_t [NumPrio-1:0] q,
                                          logic [CpqW-1:0] cpq);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (chk_t'(t[p]) == chk_t'(q[p]) * chk_t'(cpq));
    end
    return v;
  endfunction

  // The timer is one less than it was (compared at ChkW bits, so no wrap).
  function automatic prio_t timer_is_dec(timer_t [NumPrio-1:0] t, timer_t [NumPrio-1:0] was);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (chk_t'(t[p]) + chk_t'(1) == chk_t'(was[p]));
    end
    return v;
  endfunction

  // A frame names p this cycle (whether or not p is enabled).
  prio_t frame_for;
  assign frame_for = {NumPrio{frame_valid_i}} & frame_class_enable_i;

  // A taken frame loads exactly quanta x cpq (replacing the old value), so
  // a pause of q quanta taken in cycle t holds xoff_o from the edge ending
  // t for exactly q x cpq cycles (with the two count-down rules below).
  // verilog_format: off
  `SF_ASSERT(a_timer_exact_load,
             1'b1 |=> ($past(frame_for & enable_i)
                       & ~timer_is_load(timer_q, $past(frame_quanta_i), $past(cyc_per_quantum_i)))
                      == '0)
  `SF_ASSERT(a_timer_counts_down,
             1'b1 |=> ($past(enable_i & ~frame_for & timer_nonzero(timer_q))
                       & ~timer_is_dec(timer_q, $past(timer_q))) == '0)
  `SF_ASSERT(a_timer_stays_zero,
             1'b1 |=> ($past(~frame_for & ~timer_nonzero(timer_q)) & timer_nonzero(timer_q)) == '0)
  // Frames for a disabled priority are ignored and its pause is dropped.
  `SF_ASSERT(a_disabled_clears_timer, 1'b1 |=> ($past(~enable_i) & timer_nonzero(timer_q)) == '0)
  `SF_ASSERT(a_pause_sets_xoff, 1'b1 |=> ($past(evt_xoff_rx_o) & ~xoff_o) == '0)
  `SF_ASSERT(a_resume_clears_xoff, 1'b1 |=> ($past(evt_xon_rx_o) & xoff_o) == '0)

  // Outputs.
  `SF_ASSERT(a_xoff_is_timer_nonzero, xoff_o == timer_nonzero(timer_q))
  `SF_ASSERT(a_stop_masked_by_ignore, stop_o == (xoff_o & ~ignore_i))
  // The ignore input masks the stop only: the timer runs on under it.
  `SF_ASSERT(a_ignore_keeps_timer,
             1'b1 |=> ($past(ignore_i & enable_i & ~frame_for & timer_nonzero(timer_q))
                       & ~timer_is_dec(timer_q, $past(timer_q))) == '0)
  // verilog_format: on
  `SF_ASSERT(a_evt_on_hit, (evt_xoff_rx_o | evt_xon_rx_o) == (frame_for & enable_i))
  `SF_ASSERT(a_evt_xoff_quanta, (evt_xoff_rx_o & ~quanta_nonzero(frame_quanta_i)) == '0)
  `SF_ASSERT_NEVER(a_evt_exclusive, (evt_xoff_rx_o & evt_xon_rx_o) != '0)
`endif  // SYNTHESIS

endmodule
