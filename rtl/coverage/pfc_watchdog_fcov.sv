// Functional cover points of the PFC watchdog (pfc_watchdog): every state of
// syncfab_fmt_pkg::wd_state_e (rtl/spec/formats.toml) held by some queue,
// every transition of docs/switch-pfc.md, and a recovery in each mode.
// Named c_wd_state_<member> and c_wd_<from>_to_<to>; scripts/coverage/report.py
// fails when a member of wd_state_e has no state point. Bound into
// pfc_watchdog by the coverage tree only (docs/coverage.md).

`include "syncfab_assert.svh"

module pfc_watchdog_fcov
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned NumPrio = 8
) (
  input logic                    clk_i,
  input logic                    rst_ni,
  input wd_state_e [NumPrio-1:0] state_q_i,
  input wd_state_e [NumPrio-1:0] state_d_i,
  input logic [NumPrio-1:0]      drop_i      // RECOVER in drop mode
);

  logic [NumPrio-1:0] mon, rec, dis, mon_rec, mon_dis, rec_mon, dis_mon, rec_ignore;
  always_comb begin
    for (int unsigned p = 0; p < NumPrio; p++) begin
      mon[p]        = state_q_i[p] == WdMonitor;
      rec[p]        = state_q_i[p] == WdRecover;
      dis[p]        = state_q_i[p] == WdDisabled;
      mon_rec[p]    = mon[p] && state_d_i[p] == WdRecover;
      mon_dis[p]    = mon[p] && state_d_i[p] == WdDisabled;
      rec_mon[p]    = rec[p] && state_d_i[p] == WdMonitor;
      dis_mon[p]    = dis[p] && state_d_i[p] == WdMonitor;
      rec_ignore[p] = rec[p] && !drop_i[p];
    end
  end

  `SF_COVER(c_wd_state_monitor, mon != '0)
  `SF_COVER(c_wd_state_recover, rec != '0)
  `SF_COVER(c_wd_state_disabled, dis != '0)
  `SF_COVER(c_wd_monitor_to_recover, mon_rec != '0)
  `SF_COVER(c_wd_monitor_to_disabled, mon_dis != '0)
  `SF_COVER(c_wd_recover_to_monitor, rec_mon != '0)
  `SF_COVER(c_wd_disabled_to_monitor, dis_mon != '0)
  `SF_COVER(c_wd_recover_drop_mode, drop_i != '0)
  `SF_COVER(c_wd_recover_ignore_mode, rec_ignore != '0)

endmodule : pfc_watchdog_fcov

bind pfc_watchdog pfc_watchdog_fcov #(
  .NumPrio(NumPrio)
) u_fcov (
  .clk_i,
  .rst_ni,
  .state_q_i(state_q),
  .state_d_i(state_d),
  .drop_i   (drop_o)
);
