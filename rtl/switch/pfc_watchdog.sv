// PFC deadlock detection, recovery and control for one egress port (white
// paper §3.1.3; exact rules in docs/switch-pfc.md, RTL decisions there too).
//
// Per queue p, a three-state machine (syncfab_fmt_pkg::wd_state_e):
//   MONITOR  counts the cycles the peer has held p paused without a break;
//            detect_i of them in a row is a deadlock (a PFC loop never lets go).
//   RECOVER  for recover_i cycles the queue ignores pause (pfc_rx masks its
//            stop) or, in drop mode, drops its packets, which breaks the loop;
//            then back to MONITOR, counting from 0 again.
//   DISABLED reached instead of RECOVER when the deadlocks in one control
//            window exceed limit_i: PFC stays off on p until software
//            re-enables it (a queue that deadlocks that often is unsafe to run
//            lossless).
// The control window opens at a deadlock, lasts window_i cycles and counts the
// deadlocks declared in it; it runs in every state.
//
// All arithmetic on times is at TimeW bits (the register width), including
// detect_i - 1, recover_i - 1 and window_i - 1.
//
// Timing: ignore_o, drop_o, pfc_off_o and state_o are registered (state only);
// evt_* are combinational.

`include "syncfab_assert.svh"

module pfc_watchdog
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned NumPrio = 8,
  parameter int unsigned TimeW   = 24,   // detection / recovery / window times (cycles)
  parameter int unsigned CntW    = 8     // deadlock count width
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,
  input  logic [NumPrio-1:0]            enable_i,       // watchdog on for queue p
  input  logic [NumPrio-1:0]            xoff_i,         // pfc_rx.xoff_o: the peer holds p paused
  input  logic [TimeW-1:0]              detect_i,       // detection time, >= 1
  input  logic [TimeW-1:0]              recover_i,      // recovery time, >= 1
  // 1: drop p's packets during recovery; 0: send them
  input  logic                          drop_mode_i,
  input  logic [TimeW-1:0]              window_i,       // deadlock-control window, >= 1
  // more than limit_i deadlocks in one window -> disable; 0 = never disable
  input  logic [CntW-1:0]               limit_i,
  // one-cycle pulse from software: leave DISABLED
  input  logic [NumPrio-1:0]            reenable_i,
  output logic [NumPrio-1:0]            ignore_o,       // registered: RECOVER or DISABLED
  // registered: RECOVER and drop_mode latched at entry
  output logic [NumPrio-1:0]            drop_o,
  // registered: DISABLED (the switch treats p as not lossless on this queue)
  output logic [NumPrio-1:0]            pfc_off_o,
  output wd_state_e [NumPrio-1:0]       state_o,        // registered
  output logic [NumPrio-1:0]            evt_detect_o,   // comb: deadlock declared this cycle
  output logic [NumPrio-1:0]            evt_recover_o,  // comb: a recovery period ends this cycle
  output logic [NumPrio-1:0]            evt_disable_o   // comb: PFC disabled on p this cycle
);

  `SF_STATIC_ASSERT(gen_num_prio_check, NumPrio >= 1)
  `SF_STATIC_ASSERT(gen_time_width_check, TimeW >= 1)
  `SF_STATIC_ASSERT(gen_cnt_width_check, CntW >= 1)

  typedef logic [TimeW-1:0] time_t;
  typedef logic [CntW-1:0] dl_t;

  // ---------------------------------------------------------------------------
  // State (names as in the spec; one element per queue)
  // ---------------------------------------------------------------------------
  // read by the switch fabric tests' probes
  wd_state_e [NumPrio-1:0] state_q /* verilator public_flat_rd */;
  wd_state_e [NumPrio-1:0] state_d;
  time_t [NumPrio-1:0] cnt_q, cnt_d;  // continuous XOFF (MONITOR) / recovery cycles (RECOVER)
  time_t [NumPrio-1:0] win_q, win_d;  // cycles since the window opened
  logic [NumPrio-1:0] win_open_q, win_open_d;
  dl_t [NumPrio-1:0] dl_q, dl_d;  // deadlocks in the open window (saturating)
  logic [NumPrio-1:0] drop_q, drop_d;  // drop mode latched at RECOVER entry

  logic      [NumPrio-1:0] detect;                  // deadlock declared this cycle (= evt_detect_o)
  logic      [NumPrio-1:0] win_closing;             // the open window reaches its end this cycle
  time_t detect_last, recover_last, window_last;

  // TimeW-bit differences: a time of 0 (legal only while enable_i is all 0)
  // wraps to all ones, i.e. the longest time the counters can express.
  assign detect_last  = detect_i - time_t'(1);
  assign recover_last = recover_i - time_t'(1);
  assign window_last  = window_i - time_t'(1);

  always_comb begin
    for (int unsigned p = 0; p < NumPrio; p++) begin
      state_d[p]       = state_q[p];
      cnt_d[p]         = cnt_q[p];
      drop_d[p]        = drop_q[p];
      evt_recover_o[p] = 1'b0;
      evt_disable_o[p] = 1'b0;

      detect[p] = (state_q[p] == WdMonitor) && enable_i[p] && xoff_i[p]
                  && (cnt_q[p] >= detect_last);

      // Window (every state). A deadlock in the closing cycle opens the next
      // window instead of extending the old one.
      win_closing[p] = win_open_q[p] && (win_q[p] >= window_last);
      win_open_d[p]  = win_open_q[p];
      win_d[p]       = win_q[p];
      dl_d[p]        = dl_q[p];
      if (detect[p] && (win_closing[p] || !win_open_q[p])) begin
        win_open_d[p] = 1'b1;
        win_d[p]      = '0;
        dl_d[p]       = dl_t'(1);
      end else if (win_closing[p]) begin
        win_open_d[p] = 1'b0;
        win_d[p]      = '0;
        dl_d[p]       = '0;
      end else if (win_open_q[p]) begin
        // win_q < window_i - 1 here, so the increment cannot wrap.
        win_d[p] = win_q[p] + time_t'(1);
        if (detect[p]) begin
          dl_d[p] = (dl_q[p] == '1) ? dl_q[p] : dl_q[p] + dl_t'(1);
        end
      end

      unique case (state_q[p])
        WdMonitor: begin
          if (!enable_i[p] || !xoff_i[p]) begin
            cnt_d[p] = '0;
          end else if (detect[p]) begin
            cnt_d[p] = '0;
            // dl_d[p] is the count including this deadlock.
            if (limit_i != '0 && dl_d[p] > limit_i) begin
              state_d[p]       = WdDisabled;
              evt_disable_o[p] = 1'b1;
            end else begin
              state_d[p] = WdRecover;
              drop_d[p]  = drop_mode_i;
            end
          end else begin
            cnt_d[p] = cnt_q[p] + time_t'(1);  // < detect_i - 1: no wrap
          end
        end
        WdRecover: begin
          // enable_i does not cut a recovery short.
          if (cnt_q[p] >= recover_last) begin
            state_d[p]       = WdMonitor;
            cnt_d[p]         = '0;
            evt_recover_o[p] = 1'b1;
          end else begin
            cnt_d[p] = cnt_q[p] + time_t'(1);  // < recover_i - 1: no wrap
          end
        end
        WdDisabled: begin
          if (reenable_i[p]) begin
            state_d[p]    = WdMonitor;
            cnt_d[p]      = '0;
            // Software's re-enable starts deadlock control afresh.
            win_open_d[p] = 1'b0;
            win_d[p]      = '0;
            dl_d[p]       = '0;
          end
        end
        default: begin
          // 2'b11 is unreachable (a_state_legal); leave it like a reset would.
          state_d[p] = WdMonitor;
          cnt_d[p]   = '0;
        end
      endcase

      evt_detect_o[p] = detect[p];
      ignore_o[p]     = (state_q[p] == WdRecover) || (state_q[p] == WdDisabled);
      drop_o[p]       = (state_q[p] == WdRecover) && drop_q[p];
      pfc_off_o[p]    = (state_q[p] == WdDisabled);
      state_o[p]      = state_q[p];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q    <= {NumPrio{WdMonitor}};
      cnt_q      <= '0;
      win_q      <= '0;
      win_open_q <= '0;
      dl_q       <= '0;
      drop_q     <= '0;
    end else begin
      state_q    <= state_d;
      cnt_q      <= cnt_d;
      win_q      <= win_d;
      win_open_q <= win_open_d;
      dl_q       <= dl_d;
      drop_q     <= drop_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Rules
  // ---------------------------------------------------------------------------
`ifndef SYNTHESIS
  // Times are compared one bit wider than the registers, as "count + 1 >=
  // time": a different formula from the design's "count >= time - 1", so a
  // wrap or truncation in either shows up.
  localparam int unsigned ChkW = TimeW + 1;
  typedef logic [ChkW-1:0] chk_t;
  // A time of 0 (legal only while enable_i is all 0) acts as 2^TimeW: the
  // design's TimeW-bit "time - 1" wraps to all ones (RTL decision).
  function automatic chk_t chk_time(time_t t);
    return (t == '0) ? (chk_t'(1) << TimeW) : chk_t'(t);
  endfunction
  localparam int unsigned DlChkW = CntW + 1;
  typedef logic [DlChkW-1:0] dl_chk_t;

  // The deadlock count a detection in this cycle makes (the spec's n),
  // recomputed independently of dl_d.
  dl_chk_t [NumPrio-1:0] chk_n;
  always_comb begin
    for (int unsigned p = 0; p < NumPrio; p++) begin
      if (!win_open_q[p] || chk_t'(win_q[p]) + chk_t'(1) >= chk_time(window_i)) begin
        chk_n[p] = dl_chk_t'(1);
      end else begin
        chk_n[p] = dl_chk_t'(dl_q[p]) + dl_chk_t'(1);
        if (chk_n[p] > dl_chk_t'({CntW{1'b1}})) begin
          chk_n[p] = dl_chk_t'({CntW{1'b1}});
        end
      end
    end
  end

  // verilog_format: off
  `SF_ASSERT_KNOWN(a_ctrl_known, {enable_i, xoff_i, reenable_i})
  `SF_ASSERT(a_config_known,
             enable_i != '0 |-> !$isunknown({detect_i, recover_i, drop_mode_i, window_i, limit_i}))
  `SF_ASSERT_KNOWN(a_outputs_known,
                   {ignore_o, drop_o, pfc_off_o, state_o,
                    evt_detect_o, evt_recover_o, evt_disable_o})

  // Interface rule: no zero time while any queue is watched.
  `SF_ASSERT(a_times_nonzero,
             enable_i != '0 |-> detect_i != '0 && recover_i != '0 && window_i != '0)
  // verilog_format: on

  // Per-queue rules, each checked for every queue at once: one named
  // assertion over NumPrio-bit vectors (bit p is queue p) instead of one per
  // queue. A generate loop of NumPrio copies costs Verilator (5.006) a check
  // and a $past register per copy, evaluated and copied on every eval; the
  // vector form keeps the same per-queue meaning at the cost of one. A
  // failure names the rule; which queue broke it is in the waveform (the
  // chk_* terms below are per-queue vectors). An implication `a[p] |-> b[p]`
  // is written `(a & ~b) == '0`; `a[p] |=> b[p]` is written
  // `1'b1 |=> ($past(a) & ~b) == '0` (the attempt starts every cycle out of
  // reset, so `disable iff` and $past give exactly the per-queue meaning).
  typedef logic [NumPrio-1:0] prio_t;

  // The rules' per-queue terms, decoded once per cycle (checks only).
  prio_t chk_mon, chk_rec, chk_dis;  // state_q is MONITOR / RECOVER / DISABLED
  prio_t chk_cnt_zero, chk_win_zero, chk_dl_zero;
  prio_t chk_detect_due;             // cnt_q + 1 >= detect_i (detection due now)
  prio_t chk_recover_due;            // cnt_q + 1 >= recover_i (recovery ends now)
  prio_t chk_window_due;             // win_q + 1 >= window_i (window reaches its end)
  prio_t chk_over_limit;             // a deadlock now makes more than limit_i (never with 0)
  always_comb begin
    for (int unsigned p = 0; p < NumPrio; p++) begin
      chk_mon[p]         = (state_q[p] == WdMonitor);
      chk_rec[p]         = (state_q[p] == WdRecover);
      chk_dis[p]         = (state_q[p] == WdDisabled);
      chk_cnt_zero[p]    = (cnt_q[p] == '0);
      chk_win_zero[p]    = (win_q[p] == '0);
      chk_dl_zero[p]     = (dl_q[p] == '0);
      chk_detect_due[p]  = (chk_t'(cnt_q[p]) + chk_t'(1) >= chk_time(detect_i));
      chk_recover_due[p] = (chk_t'(cnt_q[p]) + chk_t'(1) >= chk_time(recover_i));
      chk_window_due[p]  = (chk_t'(win_q[p]) + chk_t'(1) >= chk_time(window_i));
      chk_over_limit[p]  = (limit_i != '0) && (chk_n[p] > dl_chk_t'(limit_i));
    end
  end

  // Terms that compare a value with its $past (evaluated only in the checks).
  // The count moved on by exactly one (at ChkW bits, so a wrap shows).
  function automatic prio_t count_is_next(time_t [NumPrio-1:0] c, time_t [NumPrio-1:0] was);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (chk_t'(c[p]) == chk_t'(was[p]) + chk_t'(1));
    end
    return v;
  endfunction

  function automatic prio_t dl_is(dl_t [NumPrio-1:0] dl, dl_chk_t [NumPrio-1:0] n);
    prio_t v;
    for (int unsigned p = 0; p < NumPrio; p++) begin
      v[p] = (dl_chk_t'(dl[p]) == n[p]);
    end
    return v;
  endfunction

  // verilog_format: off
  `SF_ASSERT(a_state_legal, &(chk_mon | chk_rec | chk_dis))

  // Detection: only in MONITOR, on a watched queue that is paused now and
  // has been for detect_i cycles in a row (cnt_q counts exactly the earlier
  // ones: +1 per paused cycle, 0 after any break).
  `SF_ASSERT(a_detect_after_continuous_xoff,
             (evt_detect_o & ~(chk_mon & enable_i & xoff_i & chk_detect_due)) == '0)
  `SF_ASSERT(a_detect_when_due,
             (chk_mon & enable_i & xoff_i & chk_detect_due & ~evt_detect_o) == '0)
  `SF_ASSERT(a_monitor_counts_xoff,
             1'b1 |=> ($past(chk_mon & enable_i & xoff_i & ~evt_detect_o)
                       & ~count_is_next(cnt_q, $past(cnt_q))) == '0)
  `SF_ASSERT(a_monitor_break_clears,
             1'b1 |=> ($past(chk_mon & ~(enable_i & xoff_i)) & ~chk_cnt_zero) == '0)
  `SF_ASSERT(a_ignore_after_detect, 1'b1 |=> ($past(evt_detect_o) & ~ignore_o) == '0)

  // Recovery: starts at 0, counts one per cycle, ends after exactly
  // recover_i cycles (recover_i held), whatever enable_i does.
  `SF_ASSERT(a_recover_starts_at_zero,
             1'b1 |=> ($past(~chk_rec) & chk_rec & ~chk_cnt_zero) == '0)
  `SF_ASSERT(a_recover_length, (chk_rec & (evt_recover_o ^ chk_recover_due)) == '0)
  `SF_ASSERT(a_recover_counts,
             1'b1 |=> ($past(chk_rec & ~evt_recover_o)
                       & ~(chk_rec & count_is_next(cnt_q, $past(cnt_q)))) == '0)
  `SF_ASSERT(a_recover_ends_in_monitor,
             1'b1 |=> ($past(evt_recover_o) & ~(chk_mon & chk_cnt_zero)) == '0)
  `SF_ASSERT(a_recover_evt_only_in_recover, (evt_recover_o & ~chk_rec) == '0)
  // Drop mode is latched at entry and held for the whole recovery.
  `SF_ASSERT(a_drop_latched_at_entry,
             1'b1 |=> ($past(evt_detect_o & ~evt_disable_o)
                       & ~(chk_rec & ~(drop_o ^ {NumPrio{$past(drop_mode_i)}}))) == '0)
  `SF_ASSERT(a_drop_held_in_recover,
             1'b1 |=> ($past(chk_rec) & chk_rec & (drop_o ^ $past(drop_o))) == '0)

  // Control: disable exactly when this deadlock makes more than limit_i in
  // the window (never with limit_i = 0), and only by a deadlock.
  `SF_ASSERT(a_disable_only_over_limit, (evt_disable_o & ~(evt_detect_o & chk_over_limit)) == '0)
  `SF_ASSERT(a_disable_when_over_limit, (evt_detect_o & chk_over_limit & ~evt_disable_o) == '0)
  `SF_ASSERT(a_enter_disabled_only_by_disable,
             1'b1 |=> ($past(~chk_dis & ~evt_disable_o) & chk_dis) == '0)
  `SF_ASSERT(a_disabled_until_reenable,
             1'b1 |=> ($past(chk_dis & ~reenable_i) & ~chk_dis) == '0)
  // Leaving DISABLED happens only through reenable_i, and only to MONITOR
  // with the counters and the window cleared.
  `SF_ASSERT(a_reenable_only_from_disabled,
             1'b1 |=> ($past(chk_dis) & ~chk_dis
                       & ~($past(reenable_i) & chk_mon & chk_cnt_zero & ~win_open_q
                           & chk_win_zero & chk_dl_zero)) == '0)
  // A stray reenable elsewhere does not clear the window.
  `SF_ASSERT(a_reenable_ignored_elsewhere,
             1'b1 |=> ($past(reenable_i & ~chk_dis & win_open_q & ~win_closing) & ~win_open_q)
                      == '0)
  `SF_ASSERT(a_recover_not_to_disabled, 1'b1 |=> ($past(chk_rec) & chk_dis) == '0)

  // Window: open exactly while it holds a count; the count made by a
  // deadlock is the spec's n; a window reaching window_i cycles closes and
  // forgets its count unless a deadlock opens the next one.
  `SF_ASSERT(a_window_open_iff_count, win_open_q == ~chk_dl_zero)
  `SF_ASSERT(a_window_closed_is_zero, (~win_open_q & ~chk_win_zero) == '0)
  `SF_ASSERT(a_window_counts_deadlock,
             1'b1 |=> ($past(evt_detect_o) & ~(win_open_q & dl_is(dl_q, $past(chk_n)))) == '0)
  `SF_ASSERT(a_window_close_resets_count,
             1'b1 |=> ($past(win_open_q & chk_window_due & ~evt_detect_o)
                       & (win_open_q | ~chk_dl_zero | ~chk_win_zero)) == '0)

  // Outputs are the state, decoded.
  `SF_ASSERT(a_ignore_is_recover_or_disabled, ignore_o == (chk_rec | chk_dis))
  `SF_ASSERT(a_drop_only_in_recover, (drop_o & ~chk_rec) == '0)
  `SF_ASSERT(a_pfc_off_is_disabled, pfc_off_o == chk_dis)
  `SF_ASSERT(a_disable_implies_detect, (evt_disable_o & ~evt_detect_o) == '0)
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
