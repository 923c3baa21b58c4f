// Dynamic ECN thresholds (docs/switch-ecn-dynamic.md): beside wred_ecn, one
// controller per egress queue (output o, queue q) measures each window of
// 2^WIN cycles (peak queue length, whether the queue ran empty, which
// inputs enqueued, whether a pause was received) and at the window's end
// moves the threshold shift sh (from the fan-in) and the marking level P
// (from the peak against QREF), inside PLO..PHI. WRED gets the effective
// Kmin/Kmax/Pmax: the static ones shifted by sh and P while the law is on
// for q (en_i[q]), the static ones unchanged while it is off.
//
// Timing: the outputs are combinational from the registered sh and P and
// the current static registers, so a window end's values are used from the
// next cycle on. The window counter runs from reset whatever the
// configuration. Every queue updates at every edge: the accumulators take
// the cycle's inputs, or at a window end the law runs and they clear, or
// with the law off the state takes its starting values (sh 0, P = the
// static Pmax).

`include "syncfab_assert.svh"

module ecn_dyn #(
  parameter int unsigned NumOut  = 8,   // output ports (queues o, q)
  parameter int unsigned NumIn   = 8,   // input ports (the enqueue masks)
  parameter int unsigned NumPrio = 8,   // queues per output
  parameter int unsigned QLenW   = 16,  // queue length, Kmin/Kmax, QREF (cells)
  parameter int unsigned ProbW   = 8,   // Pmax, P, PLO/PHI/PUP/PDN (/ 2^ProbW)
  parameter int unsigned WinW    = 5,   // the WIN field
  parameter int unsigned ShW     = 3,   // sh and FAN_SH
  parameter int unsigned ActW    = 8,   // active inputs n, n_last
  parameter int unsigned WinCntW = 20,  // the window counter; WIN <= WinCntW
  localparam type qlen_t = logic [QLenW-1:0],
  localparam type prob_t = logic [ProbW-1:0],
  localparam type sh_t = logic [ShW-1:0],
  localparam type act_t = logic [ActW-1:0],
  localparam type in_mask_t = logic [NumIn-1:0],
  localparam type prio_mask_t = logic [NumPrio-1:0]
) (
  input  logic                                 clk_i,
  input  logic                                 rst_ni,
  // Configuration (ECN_DYN_CTRL, ECN_DYN_TARGET, ECN_DYN_PMAX)
  input  prio_mask_t                           en_i,
  input  logic [WinW-1:0]                      win_i,
  input  sh_t                                  fan_sh_i,
  input  qlen_t                                qref_i,
  input  prob_t                                plo_i,
  input  prob_t                                phi_i,
  input  prob_t                                pup_i,
  input  prob_t                                pdn_i,
  // Static WRED registers of every queue
  input  qlen_t [NumOut-1:0][NumPrio-1:0]      ks_min_i,
  input  qlen_t [NumOut-1:0][NumPrio-1:0]      ks_max_i,
  input  prob_t [NumOut-1:0][NumPrio-1:0]      ps_i,
  // Measured, per cycle: the queue length at the start of the cycle, the
  // inputs whose copy reached WRED for the queue, a received pause
  input  qlen_t [NumOut-1:0][NumPrio-1:0]      qlen_i,
  input  in_mask_t [NumOut-1:0][NumPrio-1:0]   enq_i,
  input  prio_mask_t [NumOut-1:0]              pause_i,
  // Effective values for WRED, and the state the status registers show
  output qlen_t [NumOut-1:0][NumPrio-1:0]      ke_min_o,
  output qlen_t [NumOut-1:0][NumPrio-1:0]      ke_max_o,
  output prob_t [NumOut-1:0][NumPrio-1:0]      pe_o,
  output sh_t [NumOut-1:0][NumPrio-1:0]        sh_o,
  output act_t [NumOut-1:0][NumPrio-1:0]       active_o
);

  `SF_STATIC_ASSERT(gen_width_check,
                    QLenW >= 1 && ProbW >= 1 && ShW >= 1 && WinCntW >= 1 && WinCntW < 2 ** WinW)
  `SF_STATIC_ASSERT(gen_act_check, NumIn >= 1 && NumIn < 2 ** ActW && ActW <= 2 ** ShW)

  // ---------------------------------------------------------------------------
  // Window
  // ---------------------------------------------------------------------------
  logic [WinCntW-1:0] win_cnt_q, win_mask;
  logic win_end;
  assign win_mask = WinCntW'((64'(1) << win_i) - 64'(1));
  assign win_end = (win_cnt_q & win_mask) == win_mask;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) win_cnt_q <= '0;
    else if (en_i == '0) win_cnt_q <= WinCntW'(1);  // held: an idle switch keeps its state
    else win_cnt_q <= win_cnt_q + WinCntW'(1);
  end

  // floor(log2(n)) for n >= 1, 0 for n = 0.
  function automatic sh_t log2_floor(act_t n);
    sh_t lg = '0;
    for (int b = 0; b < ActW; b++) begin
      if (n[b]) lg = sh_t'(b);
    end
    return lg;
  endfunction

  for (genvar o = 0; o < NumOut; o++) begin : gen_out
    for (genvar q = 0; q < NumPrio; q++) begin : gen_q
      qlen_t acc_qmax_q, qmax;
      logic acc_empty_q, empty;
      in_mask_t acc_act_q, act;
      logic acc_pause_q, paused;
      sh_t sh_q, lg, sh_new;
      prob_t p_q, p_new;
      act_t n_last_q, n;
      logic [ProbW:0] raw, lo_clamped;
      logic up, down;

      // The window's values include this cycle's inputs.
      assign qmax = (qlen_i[o][q] > acc_qmax_q) ? qlen_i[o][q] : acc_qmax_q;
      assign empty = acc_empty_q || qlen_i[o][q] == '0;
      assign act = acc_act_q | enq_i[o][q];
      assign paused = acc_pause_q || pause_i[o][q];
      assign n = act_t'($countones(act));
      assign lg = log2_floor(n);
      assign sh_new = (lg > fan_sh_i) ? lg - fan_sh_i : '0;
      assign up = qmax > qref_i;
      assign down = !up && empty && n != '0 && !paused;
      always_comb begin
        if (up) raw = {1'b0, p_q} + {1'b0, pup_i};
        else if (down) raw = (p_q >= pdn_i) ? {1'b0, p_q - pdn_i} : '0;
        else raw = {1'b0, p_q};
        lo_clamped = (raw < {1'b0, plo_i}) ? {1'b0, plo_i} : raw;
        p_new = (lo_clamped > {1'b0, phi_i}) ? phi_i : prob_t'(lo_clamped);
      end

      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          acc_qmax_q <= '0;
          acc_empty_q <= 1'b0;
          acc_act_q <= '0;
          acc_pause_q <= 1'b0;
          sh_q <= '0;
          p_q <= '0;
          n_last_q <= '0;
        end else if (!en_i[q] || win_end) begin
          acc_qmax_q <= '0;
          acc_empty_q <= 1'b0;
          acc_act_q <= '0;
          acc_pause_q <= 1'b0;
          sh_q <= en_i[q] ? sh_new : '0;
          p_q <= en_i[q] ? p_new : ps_i[o][q];
          n_last_q <= en_i[q] ? n : '0;
        end else begin
          acc_qmax_q <= qmax;
          acc_empty_q <= empty;
          acc_act_q <= act;
          acc_pause_q <= paused;
        end
      end

      assign ke_min_o[o][q] = en_i[q] ? ks_min_i[o][q] >> sh_q : ks_min_i[o][q];
      assign ke_max_o[o][q] = en_i[q] ? ks_max_i[o][q] >> sh_q : ks_max_i[o][q];
      assign pe_o[o][q] = en_i[q] ? p_q : ps_i[o][q];
      assign sh_o[o][q] = en_i[q] ? sh_q : '0;
      assign active_o[o][q] = en_i[q] ? n_last_q : '0;

      // The law's rules: P stays within PLO..PHI after every window end
      // (PLO <= PHI: the register refuses the others), the shift is the
      // fan-in's excess over FAN_SH, an off queue restarts from the static
      // Pmax with no shift and an empty window.
      `SF_ASSERT_IMM(a_p_new_in_bounds, plo_i > phi_i || (p_new >= plo_i && p_new <= phi_i))
      `SF_ASSERT_IMM(a_sh_is_fan_in_excess,
                     32'(sh_new) == ((32'(lg) > 32'(fan_sh_i)) ? 32'(lg) - 32'(fan_sh_i) : 0))
      `SF_ASSERT_IMM(a_n_within_inputs, 32'(n) <= NumIn)
      `SF_ASSERT_IMM_NXT(a_off_restarts, !en_i[q],
                         sh_q == '0 && n_last_q == '0 && acc_act_q == '0 && acc_qmax_q == '0 &&
                         !acc_empty_q && !acc_pause_q)
      `SF_ASSERT_IMM(a_effective_static_when_off,
                     en_i[q] || (ke_min_o[o][q] == ks_min_i[o][q] &&
                                 ke_max_o[o][q] == ks_max_i[o][q] && pe_o[o][q] == ps_i[o][q]))
    end
  end

  // WIN is 4 .. WinCntW (the register refuses the others).
  `SF_ASSERT_IMM(a_win_legal, 32'(win_i) >= 4 && 32'(win_i) <= WinCntW)

endmodule
