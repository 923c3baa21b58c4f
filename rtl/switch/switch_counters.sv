// Counters of the switch: port x priority x kind (sw_counter_e, from the
// format spec; CNT_SEL names one), 32 bits, saturating, all cleared by
// CTRL.CNT_CLEAR. CNT_VALUE shows the counter CNT_SEL names (0 for a port
// outside the switch).
//
// Events arrive per port: NumEv single events (ev_kind_i[k] is the kind of
// event k, its priority comes with it) and NumMaskKinds mask events (the PFC
// and watchdog events, several priorities at once). A single-event kind may
// have more than one source per port (DROP_NO_ROUTE: the input's lookup and
// the combine unit): an event adds itself and the earlier events of this
// cycle that name the same counter, so the last of them writes the sum. Mask
// kinds differ from every other kind. Each event is one indexed increment:
// the cost per cycle is the events raised, not the NumPorts x NUM_PRIO x
// kinds counters.

`include "syncfab_assert.svh"

module switch_counters
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned NumEv = 1,
  parameter int unsigned NumMaskKinds = 1,
  parameter sw_counter_e [NumEv-1:0] EvKinds = '{default: CntRx},
  parameter sw_counter_e [NumMaskKinds-1:0] MaskKinds = '{default: CntPauseTx},
  localparam int unsigned PortW = $clog2(NumPorts)
) (
  input  logic                                       clk_i,
  input  logic                                       rst_ni,
  input  logic                                       clear_i,
  // Single events: counter (port, ev_prio, EvKinds[k]) + 1
  input  logic [NumPorts-1:0][NumEv-1:0]             ev_i,
  input  prio_t [NumPorts-1:0][NumEv-1:0]            ev_prio_i,
  // Mask events: for every priority p set in mask[n][m], counter (n, p, MaskKinds[m]) + 1
  input  prio_mask_t [NumPorts-1:0][NumMaskKinds-1:0] mask_i,
  // CNT_SEL / CNT_VALUE
  input  port_num_t                                  sel_port_i,
  input  prio_t                                      sel_prio_i,
  input  sw_counter_e                                sel_kind_i,
  output cnt_value_t                                 value_o
);

  `SF_STATIC_ASSERT(gen_ports_check, NumPorts >= 2 && NumPorts <= MaxPorts)

  localparam int unsigned NumKinds = 2 ** $bits(sw_counter_e);
  localparam int unsigned PortCnt = NumPrio * NumKinds;  // counters of one port
  typedef logic [$clog2(PortCnt)-1:0] idx_t;

  function automatic idx_t index(prio_t prio, sw_counter_e kind);
    return {prio, kind};
  endfunction

  // 1 + the events before e (this cycle, this port) that name e's counter.
  function automatic cnt_value_t same_before(logic [NumEv-1:0] ev, prio_t [NumEv-1:0] prio, int e);
    cnt_value_t n = cnt_value_t'(1);
    for (int k = 0; k < e; k++) begin
      if (ev[k] && EvKinds[k] == EvKinds[e] && prio[k] == prio[e]) n = n + cnt_value_t'(1);
    end
    return n;
  endfunction
  function automatic cnt_value_t sat_add(cnt_value_t v, cnt_value_t inc);
    return (v > '1 - inc) ? '1 : v + inc;
  endfunction

  // One counter array per port: a port's events only touch its own counters.
  cnt_value_t [NumPorts-1:0] port_value;
  for (genvar n = 0; n < NumPorts; n++) begin : gen_port
    // Read directly (not through CNT_SEL) by the switch fabric tests.
    cnt_value_t cnt_q[PortCnt]  /* verilator public_flat_rd */;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        cnt_q <= '{default: '0};
      end else if (clear_i) begin
        cnt_q <= '{default: '0};
      end else begin
        for (int e = 0; e < NumEv; e++) begin
          if (ev_i[n][e]) begin
            cnt_q[index(ev_prio_i[n][e], EvKinds[e])] <= sat_add(
                cnt_q[index(ev_prio_i[n][e], EvKinds[e])], same_before(ev_i[n], ev_prio_i[n], e));
          end
        end
        // PFC and watchdog events are rare: one test skips the port's masks.
        if (mask_i[n] != '0) begin
          for (int m = 0; m < NumMaskKinds; m++) begin
            for (int p = 0; p < NumPrio; p++) begin
              if (mask_i[n][m][p] && cnt_q[index(prio_t'(p), MaskKinds[m])] != '1) begin
                cnt_q[index(prio_t'(p), MaskKinds[m])] <= cnt_q[index(prio_t'(p), MaskKinds[m])] +
                    cnt_value_t'(1);
              end
            end
          end
        end
      end
    end

    assign port_value[n] = cnt_q[index(sel_prio_i, sel_kind_i)];
  end

  assign value_o = (32'(sel_port_i) < NumPorts) ? port_value[sel_port_i[PortW-1:0]] : '0;

  // A mask kind has one source per port and no single event shares it (its
  // increment would be lost); single events may share a kind (same_before).
  function automatic bit kinds_distinct();
    for (int a = NumEv; a < NumEv + NumMaskKinds; a++) begin
      for (int b = 0; b < NumEv + NumMaskKinds; b++) begin
        sw_counter_e kb;
        kb = (b < NumEv) ? EvKinds[b] : MaskKinds[b-NumEv];
        if (b != a && MaskKinds[a-NumEv] == kb) return 1'b0;
      end
    end
    return 1'b1;
  endfunction
  `SF_STATIC_ASSERT(gen_kinds_distinct, kinds_distinct())
  `SF_ASSERT_KNOWN(a_ev_known, ev_i)
  `SF_ASSERT_KNOWN(a_mask_known, mask_i)

  logic unused_counters;
  assign unused_counters = ^{sel_port_i[$bits(port_num_t)-1:PortW]};

endmodule
