// PFC pause / resume frame generation for one ingress port (IEEE 802.1Qbb
// semantics, white paper §3.1.2; exact rules in docs/switch-pfc.md, RTL
// decisions there too).
//
// Per priority p the ingress occupancy is compared with two thresholds with
// hysteresis: reaching XOFF puts p in the paused state (we hold the upstream
// peer paused on p), falling below XON leaves it. Every change of that state,
// and every refresh of a held pause, makes p pending; all pending priorities
// leave together in one frame (class-enable vector = pending set) as soon as
// the link takes it. A pending p goes out with its programmed quanta while
// paused and with quanta 0 (resume) otherwise, so a frame never carries a
// stale pause.
//
// The refresh counter of p counts cycles since p's last frame while p stays
// paused; when it reaches refresh_i - 1 the pause is due again, except in the
// cycle a frame carrying p leaves (that frame is the refresh). The rules are
// the spec's steps 1-5 transcribed literally.
//
// Timing: frame_valid_o, frame_class_enable_o and xoff_o are registered (state
// only); frame_quanta_o follows quanta_i combinationally; evt_* are
// combinational (they need frame_ready_i).

`include "syncfab_assert.svh"

module pfc_tx
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned NumPrio = 8,
  parameter int unsigned OccW    = 16,   // occupancy / threshold width (cells)
  parameter int unsigned RefW    = 16,   // refresh interval width (cycles)
  // A pause time in quanta, as a PFC frame carries it.
  localparam type quanta_t = logic [PFC_FRAME_QUANTA_W-1:0]
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic [NumPrio-1:0]            enable_i,    // PFC enabled on priority p (lossless)
  input  logic [NumPrio-1:0][OccW-1:0]  occ_i,       // ingress occupancy of priority p this cycle
  input  logic [NumPrio-1:0][OccW-1:0]  xoff_thr_i,  // pause when occ >= xoff_thr
  input  logic [NumPrio-1:0][OccW-1:0]  xon_thr_i,   // resume when occ < xon_thr
  // pause time sent in a pause frame (quanta, > 0)
  input  quanta_t [NumPrio-1:0]         quanta_i,
  // re-send a pause after this many cycles; 0 = never
  input  logic [RefW-1:0]               refresh_i,
  output logic                          frame_valid_o,                 // registered
  input  logic                          frame_ready_i,
  output logic [NumPrio-1:0]            frame_class_enable_o,          // registered
  output quanta_t [NumPrio-1:0]         frame_quanta_o,                // comb
  output logic [NumPrio-1:0]            xoff_o,      // registered: we hold the peer paused on p
  // comb: a frame with quanta[p] > 0 for p is sent this cycle
  output logic [NumPrio-1:0]            evt_xoff_tx_o,
  // comb: a frame with quanta[p] == 0 for p is sent this cycle
  output logic [NumPrio-1:0]            evt_xon_tx_o
);

  `SF_STATIC_ASSERT(gen_num_prio_check, NumPrio >= 1)
  `SF_STATIC_ASSERT(gen_occ_width_check, OccW >= 1)
  `SF_STATIC_ASSERT(gen_ref_width_check, RefW >= 1)

  typedef logic [RefW-1:0] ref_t;

  // ---------------------------------------------------------------------------
  // State (names as in the spec; one element per priority)
  // ---------------------------------------------------------------------------
  logic [NumPrio-1:0] xoff_q, xoff_d;  // we hold the peer paused on p
  logic [NumPrio-1:0] pend_q, pend_d;  // p goes out in the next frame
  ref_t [NumPrio-1:0] ref_q, ref_d;  // cycles since p's last pause frame (saturating)

  logic [NumPrio-1:0] sent;            // the frame leaves this cycle and carries p
  logic [NumPrio-1:0] due;             // p's held pause must be refreshed
  logic               refresh_on;
  ref_t               refresh_last;    // refresh_i - 1; only used when refresh_i != 0

  assign refresh_on   = (refresh_i != '0);
  assign refresh_last = refresh_i - ref_t'(1);

  // ---------------------------------------------------------------------------
  // Frame (from state only, except the quanta values)
  // ---------------------------------------------------------------------------
  assign frame_valid_o        = |pend_q;
  assign frame_class_enable_o = pend_q;
  assign xoff_o               = xoff_q;

  // ---------------------------------------------------------------------------
  // Next state, spec steps 1-5 per priority
  // ---------------------------------------------------------------------------
  always_comb begin
    for (int unsigned p = 0; p < NumPrio; p++) begin
      // 1. Hysteresis. Leaving XOFF needs occ < xon_thr; a disabled priority
      //    is never paused (disabling p while paused resumes the peer).
      if (!xoff_q[p]) begin
        xoff_d[p] = enable_i[p] && (occ_i[p] >= xoff_thr_i[p]);
      end else begin
        xoff_d[p] = enable_i[p] && !(occ_i[p] < xon_thr_i[p]);
      end

      // 2. / 3.
      sent[p] = frame_valid_o && frame_ready_i && pend_q[p];
      due[p]  = xoff_q[p] && refresh_on && (ref_q[p] >= refresh_last) && !sent[p];

      // 4. A bit stays pending until a frame carries it; a flip or a due
      //    refresh (re)sets it, also in the cycle the frame leaves.
      pend_d[p] = (pend_q[p] && !sent[p]) || (xoff_d[p] != xoff_q[p]) || due[p];

      // 5. Counts only while paused in this cycle and the next, restarting at
      //    every frame that carries p; saturates so a long-blocked frame
      //    cannot wrap the count back below the refresh point.
      if (!xoff_d[p] || !xoff_q[p] || sent[p]) begin
        ref_d[p] = '0;
      end else if (ref_q[p] == '1) begin
        ref_d[p] = ref_q[p];
      end else begin
        ref_d[p] = ref_q[p] + ref_t'(1);
      end

      frame_quanta_o[p] = (pend_q[p] && xoff_q[p]) ? quanta_i[p] : '0;
      evt_xoff_tx_o[p]  = sent[p] && (frame_quanta_o[p] != '0);
      evt_xon_tx_o[p]   = sent[p] && (frame_quanta_o[p] == '0);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      xoff_q <= '0;
      pend_q <= '0;
      ref_q  <= '0;
    end else begin
      xoff_q <= xoff_d;
      pend_q <= pend_d;
      ref_q  <= ref_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  `SF_ASSERT_KNOWN(a_ready_known, frame_ready_i)
  // verilog_format: off
  `SF_ASSERT_KNOWN(a_inputs_known,
                   {enable_i, occ_i, xoff_thr_i, xon_thr_i, quanta_i, refresh_i})
  `SF_ASSERT_KNOWN(a_outputs_known,
                   {frame_valid_o, frame_class_enable_o, frame_quanta_o, xoff_o,
                    evt_xoff_tx_o, evt_xon_tx_o})

  // Frame shape: a frame names at least one class, and no class is offered
  // without a frame (spec: "no frame with all class bits 0").
  `SF_ASSERT(a_no_frame_without_class, frame_valid_o |-> frame_class_enable_o != '0)
  `SF_ASSERT(a_no_class_without_frame, !frame_valid_o |-> frame_class_enable_o == '0)
  // A waiting frame may gain classes but never loses one (spec: quanta may
  // turn from pause to resume while waiting, so only the class bits are held).
  `SF_ASSERT(a_class_not_withdrawn,
             frame_valid_o && !frame_ready_i
             |=> (frame_class_enable_o & $past(frame_class_enable_o))
                 == $past(frame_class_enable_o))
  // verilog_format: on

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
  typedef logic [NumPrio-1:0][OccW-1:0] occ_vec_t;
  typedef quanta_t [NumPrio-1:0] quanta_vec_t;

  // a[p] >= b[p] for every p.
  function automatic prio_t occ_at_least(occ_vec_t a, occ_vec_t b);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (a[p] >= b[p]);
    end
    return v;
  endfunction

  function automatic prio_t quanta_nonzero(quanta_vec_t q);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (q[p] != '0);
    end
    return v;
  endfunction

  function automatic prio_t quanta_equal(quanta_vec_t a, quanta_vec_t b);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (a[p] == b[p]);
    end
    return v;
  endfunction

  function automatic prio_t ref_nonzero(ref_t [NumPrio-1:0] r);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (r[p] != '0);
    end
    return v;
  endfunction

  // The refresh count moved on by one from was, saturating at all ones.
  function automatic prio_t ref_is_next(ref_t [NumPrio-1:0] r, ref_t [NumPrio-1:0] was);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (r[p] == ((was[p] == '1) ? was[p] : was[p] + ref_t'(1)));
    end
    return v;
  endfunction

  // The count has reached refresh_i - 1, written as ref + 1 >= refresh at
  // RefW + 1 bits (a different formula from the design's).
  function automatic prio_t ref_reached(ref_t [NumPrio-1:0] r, ref_t refresh);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = ({1'b0, r[p]} + 1'b1 >= {1'b0, refresh});
    end
    return v;
  endfunction

  // The frame offered now: valid, carrying p.
  prio_t offered;
  assign offered = {NumPrio{frame_valid_o}} & frame_class_enable_o;

  // The spec's latency bound: a crossing of XOFF in cycle t offers a pause
  // for p from the edge ending t (1 cycle + however long the link blocks).
  // verilog_format: off
  `SF_ASSERT(a_pause_after_xoff_crossing,
             1'b1 |=> ($past(~xoff_o & enable_i & occ_at_least(occ_i, xoff_thr_i))
                       & ~(offered & xoff_o & quanta_equal(frame_quanta_o, quanta_i))) == '0)
  // Falling below XON (or disabling p) while paused offers a resume.
  `SF_ASSERT(a_resume_after_xon_crossing,
             1'b1 |=> ($past(xoff_o & ~(enable_i & occ_at_least(occ_i, xon_thr_i)))
                       & ~(offered & ~xoff_o & ~quanta_nonzero(frame_quanta_o))) == '0)
  // Hysteresis holds: no change of pause state without a threshold crossing.
  `SF_ASSERT(a_xoff_holds_between_thresholds,
             1'b1 |=> ($past(xoff_o & enable_i & occ_at_least(occ_i, xon_thr_i)) & ~xoff_o) == '0)
  `SF_ASSERT(a_xon_holds_below_xoff,
             1'b1 |=> ($past(~xoff_o & ~(enable_i & occ_at_least(occ_i, xoff_thr_i))) & xoff_o)
                      == '0)
  // Spec: xoff_o never 1 on a disabled priority one cycle after it was disabled.
  `SF_ASSERT(a_xoff_off_after_disable, 1'b1 |=> ($past(~enable_i) & xoff_o) == '0)

  // A class stays pending until a frame carries it; after it is carried it
  // is pending again only for a flip or a due refresh (no duplicates).
  `SF_ASSERT(a_pend_until_sent, 1'b1 |=> ($past(pend_q & ~sent) & ~pend_q) == '0)
  `SF_ASSERT(a_flip_makes_pending, 1'b1 |=> ($past(xoff_d ^ xoff_q) & ~pend_q) == '0)
  `SF_ASSERT(a_no_duplicate_frame,
             1'b1 |=> ($past(sent & ~(xoff_d ^ xoff_q) & ~due) & pend_q) == '0)
  `SF_ASSERT(a_idle_stays_idle,
             1'b1 |=> ($past(~pend_q & ~(xoff_d ^ xoff_q) & ~due) & pend_q) == '0)

  // Refresh: counts from the cycle after p's frame left, only while paused;
  // due (and so pending again) once the count reaches refresh_i - 1.
  `SF_ASSERT(a_ref_zero_unless_paused, (~xoff_q & ref_nonzero(ref_q)) == '0)
  `SF_ASSERT(a_ref_restarts_on_send, 1'b1 |=> ($past(sent) & ref_nonzero(ref_q)) == '0)
  `SF_ASSERT(a_ref_counts,
             1'b1 |=> ($past(xoff_q & xoff_d & ~sent) & ~ref_is_next(ref_q, $past(ref_q))) == '0)
  `SF_ASSERT(a_refresh_due_pends,
             1'b1 |=> ($past({NumPrio{refresh_i != '0}} & xoff_q & ref_reached(ref_q, refresh_i)
                             & ~sent)
                       & ~pend_q) == '0)
  `SF_ASSERT(a_refresh_zero_never_due, refresh_i == '0 |-> due == '0)

  // Frame contents: a pending paused class carries its programmed quanta,
  // anything else carries 0.
  `SF_ASSERT(a_quanta_is_programmed,
             (pend_q & xoff_q & ~quanta_equal(frame_quanta_o, quanta_i)) == '0)
  `SF_ASSERT(a_quanta_zero_otherwise,
             (~(pend_q & xoff_q) & quanta_nonzero(frame_quanta_o)) == '0)
  // Interface rule "quanta > 0": checked where it matters, when a pause for
  // p actually leaves (a 0 there would be a resume counted as one).
  `SF_ASSERT(a_pause_quanta_nonzero, (sent & xoff_q & ~quanta_nonzero(quanta_i)) == '0)

  // Events: exactly one per class carried by a frame that leaves.
  `SF_ASSERT(a_evt_only_when_sent,
             (evt_xoff_tx_o | evt_xon_tx_o) == (offered & {NumPrio{frame_ready_i}}))
  // verilog_format: on
  `SF_ASSERT_NEVER(a_evt_exclusive, (evt_xoff_tx_o & evt_xon_tx_o) != '0)
`endif  // SYNTHESIS

endmodule
