// The bulk sender's flow table (docs/nic/dcqcn.md §2): every entry's
// configuration, state, error code, packet index (FLOW_SENT) and CNP count
// (FLOW_CNP). The rate state of each entry is the reaction point's
// (nic_dcqcn_rp); the packets are the sender's (nic_dcqcn_sender).
//
// Events of cycle t, landing at the edge closing t (§7):
//   start_i   START of entry idx_i (the CSR wrapper refused it if the entry
//             was RUNNING): the staging registers are copied in, FLOW_SENT
//             and FLOW_CNP are 0, and the copy is checked in §2's order (an
//             entry whose last flit leaves in t is no longer RUNNING for
//             DUP_FLOW); the entry is RUNNING (ERR NONE) or ERROR (ERR the
//             first failure) from t + 1.
//   stop_i    STOP of entry idx_i: a RUNNING entry becomes STOPPED, unless
//             its last packet's last flit leaves in t (done_i): every packet
//             has then left, and the entry becomes DONE (§7).
//   grant_i   a DATA packet of entry grant_idx_i was granted: FLOW_SENT + 1.
//   done_i    the last flit of entry done_idx_i's last packet left: DONE.
//   cnp_i     a CNP matched RUNNING entry cnp_idx_i: FLOW_CNP + 1, saturating.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_dcqcn_flows
  import syncfab_fmt_pkg::*;
#(
  localparam int unsigned FlowIdxW = (NUM_FLOWS > 1) ? $clog2(NUM_FLOWS) : 1,
  localparam int unsigned FlitsW   = PKT_HDR_LEN_FLITS_W,
  localparam int unsigned LabelW   = PKT_HDR_FLOW_LABEL_W,
  localparam int unsigned PrioW    = PKT_HDR_PRIO_W,
  localparam int unsigned LidW     = PKT_HDR_DST_LID_W
) (
  input  logic                                clk_i,
  input  logic                                rst_ni,
  input  logic [LidW-1:0]                     own_lid_i,  // NODE_LID.LID

  // FLOW_CTRL command and the staging registers
  input  logic                                start_i,
  input  logic                                stop_i,
  input  logic [FlowIdxW-1:0]                 idx_i,
  input  logic [LidW-1:0]                     stg_dst_i,
  input  logic [FlitsW-1:0]                   stg_payload_i,
  input  logic [PrioW-1:0]                    stg_prio_i,
  input  logic                                stg_ect_i,
  input  logic [LabelW-1:0]                   stg_label_i,
  input  logic [31:0]                         stg_pkts_i,

  // Sender and reaction point events
  input  logic                                grant_i,
  input  logic [FlowIdxW-1:0]                 grant_idx_i,
  input  logic                                done_i,
  input  logic [FlowIdxW-1:0]                 done_idx_i,
  input  logic                                cnp_i,
  input  logic [FlowIdxW-1:0]                 cnp_idx_i,

  // Every entry
  output flow_state_e [NUM_FLOWS-1:0]         state_o,
  output flow_err_e   [NUM_FLOWS-1:0]         err_o,
  output logic [NUM_FLOWS-1:0]                running_o,
  output logic [NUM_FLOWS-1:0][LidW-1:0]      dst_o,
  output logic [NUM_FLOWS-1:0][FlitsW-1:0]    payload_o,
  output logic [NUM_FLOWS-1:0][PrioW-1:0]     prio_o,
  output logic [NUM_FLOWS-1:0]                ect_o,
  output logic [NUM_FLOWS-1:0][LabelW-1:0]    label_o,
  output logic [NUM_FLOWS-1:0][31:0]          pkts_o,
  output logic [NUM_FLOWS-1:0][31:0]          sent_o,
  output logic [NUM_FLOWS-1:0][31:0]          cnp_cnt_o
);

  `SF_STATIC_ASSERT(gen_num_flows_check, NUM_FLOWS >= 1 && NUM_FLOWS <= 8)
  `SF_STATIC_ASSERT(gen_payload_check, DATA_MAX_PAYLOAD_FLITS < (1 << FlitsW) - 1)

  flow_state_e [NUM_FLOWS-1:0]      state_q;
  flow_err_e   [NUM_FLOWS-1:0]      err_q;
  logic [NUM_FLOWS-1:0][LidW-1:0]   dst_q;
  logic [NUM_FLOWS-1:0][FlitsW-1:0] payload_q;
  logic [NUM_FLOWS-1:0][PrioW-1:0]  prio_q;
  logic [NUM_FLOWS-1:0]             ect_q;
  logic [NUM_FLOWS-1:0][LabelW-1:0] label_q;
  logic [NUM_FLOWS-1:0][31:0] pkts_q, sent_q, cnp_q;
  logic [NUM_FLOWS-1:0] running;

  always_comb begin
    for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
      running[f] = state_q[f] == FlowRunning;
    end
  end

  // §2's checks of the staging registers, the first failure winning.
  flow_err_e start_err;
  logic dup;
  always_comb begin
    dup = 1'b0;
    for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
      // An entry whose last flit leaves in this cycle is DONE in it (§7).
      if (running[f] && !(done_i && done_idx_i == FlowIdxW'(f)) && dst_q[f] == stg_dst_i &&
          label_q[f] == stg_label_i) begin
        dup = 1'b1;
      end
    end
    if (stg_payload_i == '0 || 32'(stg_payload_i) > DATA_MAX_PAYLOAD_FLITS) begin
      start_err = FerrBadLength;
    end else if (stg_pkts_i == '0) begin
      start_err = FerrBadCount;
    end else if (stg_dst_i == LID_NONE || stg_dst_i >= MLID_BASE || stg_dst_i == own_lid_i ||
                 own_lid_i == LID_NONE) begin
      start_err = FerrBadLid;
    end else if (dup) begin
      start_err = FerrDupFlow;
    end else begin
      start_err = FerrNone;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= {NUM_FLOWS{FlowIdle}};
      err_q     <= {NUM_FLOWS{FerrNone}};
      dst_q     <= '0;
      payload_q <= '0;
      prio_q    <= '0;
      ect_q     <= '0;
      label_q   <= '0;
      pkts_q    <= '0;
      sent_q    <= '0;
      cnp_q     <= '0;
    end else begin
      if (grant_i) begin
        sent_q[grant_idx_i] <= sent_q[grant_idx_i] + 32'd1;
      end
      if (cnp_i && cnp_q[cnp_idx_i] != '1) begin
        cnp_q[cnp_idx_i] <= cnp_q[cnp_idx_i] + 32'd1;
      end
      if (done_i) begin
        state_q[done_idx_i] <= FlowDone;
      end
      if (stop_i && running[idx_i] && !(done_i && done_idx_i == idx_i)) begin
        state_q[idx_i] <= FlowStopped;
      end
      if (start_i) begin
        dst_q[idx_i]     <= stg_dst_i;
        payload_q[idx_i] <= stg_payload_i;
        prio_q[idx_i]    <= stg_prio_i;
        ect_q[idx_i]     <= stg_ect_i;
        label_q[idx_i]   <= stg_label_i;
        pkts_q[idx_i]    <= stg_pkts_i;
        sent_q[idx_i]    <= '0;
        cnp_q[idx_i]     <= '0;
        state_q[idx_i]   <= (start_err == FerrNone) ? FlowRunning : FlowError;
        err_q[idx_i]     <= start_err;
      end
    end
  end

  assign state_o   = state_q;
  assign err_o     = err_q;
  assign running_o = running;
  assign dst_o     = dst_q;
  assign payload_o = payload_q;
  assign prio_o    = prio_q;
  assign ect_o     = ect_q;
  assign label_o   = label_q;
  assign pkts_o    = pkts_q;
  assign sent_o    = sent_q;
  assign cnp_cnt_o = cnp_q;

`ifndef SYNTHESIS
  logic chk_running_dup;  // two RUNNING entries with one (destination, label)
  always_comb begin
    chk_running_dup = 1'b0;
    for (int unsigned f = 0; f < NUM_FLOWS; f++) begin
      for (int unsigned g = f + 1; g < NUM_FLOWS; g++) begin
        if (running[f] && running[g] && dst_q[f] == dst_q[g] && label_q[f] == label_q[g]) begin
          chk_running_dup = 1'b1;
        end
      end
    end
  end
`endif

  // verilog_format: off
  // The CSR wrapper refuses a START for a RUNNING entry, and no event of the
  // sender or the reaction point touches an entry that is not RUNNING.
  `NIC_ASSERT_IMP(a_start_not_running, start_i, !running[idx_i] && !stop_i)
  `NIC_ASSERT_IMP(a_grant_running, grant_i, running[grant_idx_i] &&
                                            sent_q[grant_idx_i] < pkts_q[grant_idx_i])
  `NIC_ASSERT_IMP(a_done_running, done_i, running[done_idx_i] &&
                                          sent_q[done_idx_i] == pkts_q[done_idx_i])
  `NIC_ASSERT_IMP(a_cnp_running, cnp_i, running[cnp_idx_i])
  // DUP_FLOW keeps (destination, label) unique among RUNNING entries: a CNP
  // matches one entry at most.
  `NIC_ASSERT(a_running_unique, !chk_running_dup)
  // A RUNNING entry's configuration passed the checks.
  `NIC_ASSERT_FORALL(a_running_config_ok, 1'b1, f, NUM_FLOWS, running[f],
                     payload_q[f] != '0 && 32'(payload_q[f]) <= DATA_MAX_PAYLOAD_FLITS &&
                     pkts_q[f] != '0 && err_q[f] == FerrNone)
  // verilog_format: on

endmodule
