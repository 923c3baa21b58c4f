// Functional cover points of the switch's events, one per counter kind
// (syncfab_fmt_pkg::sw_counter_e from rtl/spec/formats.toml): every drop
// reason (DROP_*), RX/TX, ECN marks, PFC frames sent and received, and the
// watchdog's detections, recoveries and disables, each counted at least
// once. Named c_cnt_<member>; scripts/coverage/report.py fails when a member
// of sw_counter_e has no point. Bound into switch_counters by the coverage
// tree only (docs/coverage.md), where the switch's events meet with their
// kinds (switch_top's EvKinds and MaskKinds).

`include "syncfab_assert.svh"

module switch_counters_fcov
  import syncfab_fmt_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned NumEv = 1,
  parameter int unsigned NumMaskKinds = 1,
  parameter sw_counter_e [NumEv-1:0] EvKinds = '{default: CntRx},
  parameter sw_counter_e [NumMaskKinds-1:0] MaskKinds = '{default: CntPauseTx},
  parameter int unsigned MaskW = 8
) (
  input logic                                      clk_i,
  input logic                                      rst_ni,
  input logic [NumPorts-1:0][NumEv-1:0]            ev_i,
  input logic [NumPorts-1:0][NumMaskKinds-1:0][MaskW-1:0] mask_i
);

  // Kinds counted in this cycle, on any port and priority.
  logic [2**$bits(sw_counter_e)-1:0] seen;
  always_comb begin
    seen = '0;
    for (int unsigned n = 0; n < NumPorts; n++) begin
      for (int unsigned e = 0; e < NumEv; e++) begin
        if (ev_i[n][e]) seen[EvKinds[e]] = 1'b1;
      end
      for (int unsigned m = 0; m < NumMaskKinds; m++) begin
        if (mask_i[n][m] != '0) seen[MaskKinds[m]] = 1'b1;
      end
    end
  end

  `SF_COVER(c_cnt_rx, seen[CntRx])
  `SF_COVER(c_cnt_tx, seen[CntTx])
  `SF_COVER(c_cnt_drop_wred, seen[CntDropWred])
  `SF_COVER(c_cnt_drop_no_route, seen[CntDropNoRoute])
  `SF_COVER(c_cnt_drop_bad_pkt, seen[CntDropBadPkt])
  `SF_COVER(c_cnt_drop_disabled, seen[CntDropDisabled])
  `SF_COVER(c_cnt_drop_wd, seen[CntDropWd])
  `SF_COVER(c_cnt_ecn_mark, seen[CntEcnMark])
  `SF_COVER(c_cnt_pause_tx, seen[CntPauseTx])
  `SF_COVER(c_cnt_resume_tx, seen[CntResumeTx])
  `SF_COVER(c_cnt_pause_rx, seen[CntPauseRx])
  `SF_COVER(c_cnt_resume_rx, seen[CntResumeRx])
  `SF_COVER(c_cnt_wd_detect, seen[CntWdDetect])
  `SF_COVER(c_cnt_wd_recover, seen[CntWdRecover])
  `SF_COVER(c_cnt_wd_disable, seen[CntWdDisable])
  `SF_COVER(c_cnt_drop_buf, seen[CntDropBuf])

endmodule : switch_counters_fcov

bind switch_counters switch_counters_fcov #(
  .NumPorts    (NumPorts),
  .NumEv       (NumEv),
  .NumMaskKinds(NumMaskKinds),
  .EvKinds     (EvKinds),
  .MaskKinds   (MaskKinds),
  .MaskW       (NUM_PRIO)
) u_fcov (
  .clk_i,
  .rst_ni,
  .ev_i,
  .mask_i
);
