// The data path's register block (docs/nic/dcqcn.md, rtl/nic/nic_dcqcn.rdl):
// the PeakRDL-generated nic_dcqcn_reg_top behind lowRISC-style ports, with
// the refusals the RDL cannot state (§5 range checks, §2 FLOW_CTRL and
// FLOW_SEL refusals; §7: they sit here, so the register block never sees a
// refused write).
//
// APB4 completer, zero wait states, as nic_csr: PSLVERR for an unaligned
// address (apb_unaligned_guard), an address outside the map, a write to a
// register without writable fields, and here for a refused write:
//   ALPHA_CFG.G_SHIFT outside 1 .. 16; ALPHA_TIMER, RATE_TIMER, BYTE_COUNTER
//   0; RATE_AI, RATE_HAI, RATE_MIN outside 1 .. RATE_LINE; FLOW_SEL.INDEX >=
//   NUM_FLOWS; FLOW_CTRL with INDEX >= NUM_FLOWS, with START and STOP both
//   1, or with START for an entry that is RUNNING.
// A refused write writes nothing: the whole register keeps its value. The
// value checked is the register as the write would leave it (PSTRB merges
// the written bytes into the current value; bits outside the fields are
// ignored). The decision is taken in the setup phase, from the state then,
// and answered in the access phase (the register block would act on the
// setup phase's request).
//
// START and STOP act in the cycle the FLOW_CTRL write lands (the access
// phase, start_o / stop_o with the written INDEX), as every other register
// write does: the flow table copies the staging registers at the end of it
// and the entry is RUNNING from the next cycle (§2, §7). The register
// block's single-pulse copies of the two bits (high in the cycle after) are
// not used.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_dcqcn_csr
  import syncfab_fmt_pkg::*;
  import nic_dcqcn_reg_pkg::*;
  import nic_dcqcn_reg_addr_pkg::*;
#(
  localparam int unsigned AddrW = NIC_DCQCN_REG_TOP_MIN_ADDR_WIDTH,
  localparam int unsigned DataW = NIC_DCQCN_REG_TOP_DATA_WIDTH
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  // APB4 completer (offsets inside the block)
  input  logic                 psel_i,
  input  logic                 penable_i,
  input  logic                 pwrite_i,
  input  logic [2:0]           pprot_i,
  input  logic [AddrW-1:0]     paddr_i,
  input  logic [DataW-1:0]     pwdata_i,
  input  logic [DataW/8-1:0]   pstrb_i,
  output logic [DataW-1:0]     prdata_o,
  output logic                 pready_o,
  output logic                 pslverr_o,

  // Flow-table entries RUNNING (a START for one is refused)
  input  logic [NUM_FLOWS-1:0] running_i,

  // FLOW_CTRL commands, in the cycle the write lands (its access phase)
  output logic                 start_o,
  output logic                 stop_o,
  output logic [FLOW_CTRL_INDEX_WIDTH-1:0] cmd_idx_o,

  // Register fields to and from the data path
  input  nic_dcqcn__in_t       hwif_i,
  output nic_dcqcn__out_t      hwif_o
);

  localparam int unsigned LsbW = $clog2(DataW / 8);
  localparam int unsigned RateW = $clog2(RATE_LINE + 1);

  `SF_STATIC_ASSERT(a_map_fits_addr, NIC_DCQCN_REG_TOP_SIZE <= (1 << AddrW))
  `SF_STATIC_ASSERT(
      a_rate_width,
      RATE_AI_RATE_WIDTH == RateW && RATE_HAI_RATE_WIDTH == RateW && RATE_MIN_RATE_WIDTH == RateW)
  `SF_STATIC_ASSERT(a_flow_index_width, FLOW_CTRL_INDEX_WIDTH >= $clog2(NUM_FLOWS + 1)
                    && FLOW_SEL_INDEX_WIDTH >= $clog2(NUM_FLOWS + 1))

  // ---------------------------------------------------------------------------
  // Unaligned transfers: answered by the guard, never seen below
  // ---------------------------------------------------------------------------
  logic g_psel, g_pready, g_pslverr;
  logic [DataW-1:0] g_prdata;

  apb_unaligned_guard #(
    .DataW(DataW)
  ) u_unaligned_guard (
    .clk_i,
    .rst_ni,
    .psel_i,
    .penable_i,
    .paddr_lsb_i  (paddr_i[LsbW-1:0]),
    .prdata_o,
    .pready_o,
    .pslverr_o,
    .blk_psel_o   (g_psel),
    .blk_prdata_i (g_prdata),
    .blk_pready_i (g_pready),
    .blk_pslverr_i(g_pslverr)
  );

  // ---------------------------------------------------------------------------
  // Refusals
  // ---------------------------------------------------------------------------
  // The register as the write leaves it: written bytes from PWDATA, the others
  // from its current value (only the fields checked below matter).
  logic [DataW-1:0] bytemask;
  always_comb begin
    for (int unsigned b = 0; b < DataW / 8; b++) begin
      bytemask[b*8+:8] = {8{pstrb_i[b]}};
    end
  end

  function automatic logic [DataW-1:0] merged(logic [DataW-1:0] cur, logic [DataW-1:0] wdata,
                                              logic [DataW-1:0] mask);
    return (cur & ~mask) | (wdata & mask);
  endfunction

  logic [AddrW-1:0] waddr;
  logic [DataW-1:0] cur;  // the addressed register's current checked fields, in place
  logic [DataW-1:0] nv;   // ... as the write would leave them
  logic refuse_now, refuse_q, refuse;

  assign waddr = {paddr_i[AddrW-1:LsbW], LsbW'(0)};

  always_comb begin
    cur = '0;
    unique case (32'(waddr))
      ALPHA_CFG_OFFSET:    cur[ALPHA_CFG_G_SHIFT_LSB+:ALPHA_CFG_G_SHIFT_WIDTH] =
                               hwif_o.ALPHA_CFG.G_SHIFT.value;
      ALPHA_TIMER_OFFSET:  cur[ALPHA_TIMER_CYCLES_LSB+:ALPHA_TIMER_CYCLES_WIDTH] =
                               hwif_o.ALPHA_TIMER.CYCLES.value;
      RATE_TIMER_OFFSET:   cur[RATE_TIMER_CYCLES_LSB+:RATE_TIMER_CYCLES_WIDTH] =
                               hwif_o.RATE_TIMER.CYCLES.value;
      BYTE_COUNTER_OFFSET: cur[BYTE_COUNTER_FLITS_LSB+:BYTE_COUNTER_FLITS_WIDTH] =
                               hwif_o.BYTE_COUNTER.FLITS.value;
      RATE_AI_OFFSET:      cur[RATE_AI_RATE_LSB+:RATE_AI_RATE_WIDTH] = hwif_o.RATE_AI.RATE.value;
      RATE_HAI_OFFSET:     cur[RATE_HAI_RATE_LSB+:RATE_HAI_RATE_WIDTH] = hwif_o.RATE_HAI.RATE.value;
      RATE_MIN_OFFSET:     cur[RATE_MIN_RATE_LSB+:RATE_MIN_RATE_WIDTH] = hwif_o.RATE_MIN.RATE.value;
      // START and STOP are single pulses: 0 between writes.
      FLOW_CTRL_OFFSET:    cur[FLOW_CTRL_INDEX_LSB+:FLOW_CTRL_INDEX_WIDTH] =
                               hwif_o.FLOW_CTRL.INDEX.value;
      FLOW_SEL_OFFSET:     cur[FLOW_SEL_INDEX_LSB+:FLOW_SEL_INDEX_WIDTH] =
                               hwif_o.FLOW_SEL.INDEX.value;
      default:             cur = '0;
    endcase
  end

  assign nv = merged(cur, pwdata_i, bytemask);

  // Field values of the write, read at their RDL positions.
  logic [ALPHA_CFG_G_SHIFT_WIDTH-1:0] nv_g_shift;
  logic [ALPHA_TIMER_CYCLES_WIDTH-1:0] nv_alpha_timer;
  logic [RATE_TIMER_CYCLES_WIDTH-1:0] nv_rate_timer;
  logic [BYTE_COUNTER_FLITS_WIDTH-1:0] nv_byte_counter;
  logic [RateW-1:0] nv_rate_ai, nv_rate_hai, nv_rate_min;
  logic [FLOW_CTRL_INDEX_WIDTH-1:0] nv_ctrl_index;
  logic nv_start, nv_stop;
  logic [FLOW_SEL_INDEX_WIDTH-1:0] nv_sel_index;

  assign nv_g_shift      = nv[ALPHA_CFG_G_SHIFT_LSB+:ALPHA_CFG_G_SHIFT_WIDTH];
  assign nv_alpha_timer  = nv[ALPHA_TIMER_CYCLES_LSB+:ALPHA_TIMER_CYCLES_WIDTH];
  assign nv_rate_timer   = nv[RATE_TIMER_CYCLES_LSB+:RATE_TIMER_CYCLES_WIDTH];
  assign nv_byte_counter = nv[BYTE_COUNTER_FLITS_LSB+:BYTE_COUNTER_FLITS_WIDTH];
  assign nv_rate_ai      = nv[RATE_AI_RATE_LSB+:RATE_AI_RATE_WIDTH];
  assign nv_rate_hai     = nv[RATE_HAI_RATE_LSB+:RATE_HAI_RATE_WIDTH];
  assign nv_rate_min     = nv[RATE_MIN_RATE_LSB+:RATE_MIN_RATE_WIDTH];
  assign nv_ctrl_index   = nv[FLOW_CTRL_INDEX_LSB+:FLOW_CTRL_INDEX_WIDTH];
  assign nv_start        = pwdata_i[FLOW_CTRL_START_LSB] && pstrb_i[FLOW_CTRL_START_LSB/8];
  assign nv_stop         = pwdata_i[FLOW_CTRL_STOP_LSB] && pstrb_i[FLOW_CTRL_STOP_LSB/8];
  assign nv_sel_index    = nv[FLOW_SEL_INDEX_LSB+:FLOW_SEL_INDEX_WIDTH];

  function automatic logic rate_bad(logic [RateW-1:0] r);
    return r == '0 || 32'(r) > RATE_LINE;
  endfunction

  // The entry FLOW_CTRL names (meaningful when INDEX < NUM_FLOWS).
  logic [$clog2(NUM_FLOWS)-1:0] nv_flow;
  assign nv_flow = nv_ctrl_index[$clog2(NUM_FLOWS)-1:0];

  logic bad_value;
  always_comb begin
    unique case (32'(waddr))
      ALPHA_CFG_OFFSET:    bad_value = nv_g_shift == '0 || 32'(nv_g_shift) > $clog2(ALPHA_ONE);
      ALPHA_TIMER_OFFSET:  bad_value = nv_alpha_timer == '0;
      RATE_TIMER_OFFSET:   bad_value = nv_rate_timer == '0;
      BYTE_COUNTER_OFFSET: bad_value = nv_byte_counter == '0;
      RATE_AI_OFFSET:      bad_value = rate_bad(nv_rate_ai);
      RATE_HAI_OFFSET:     bad_value = rate_bad(nv_rate_hai);
      RATE_MIN_OFFSET:     bad_value = rate_bad(nv_rate_min);
      FLOW_CTRL_OFFSET:    bad_value = 32'(nv_ctrl_index) >= NUM_FLOWS || (nv_start && nv_stop) ||
                                       (nv_start && running_i[nv_flow]);
      FLOW_SEL_OFFSET:     bad_value = 32'(nv_sel_index) >= NUM_FLOWS;
      default:             bad_value = 1'b0;
    endcase
  end

  // Setup phase of an aligned write: decide; the access phase answers.
  assign refuse_now = g_psel && !penable_i && pwrite_i && bad_value;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      refuse_q <= 1'b0;
    end else if (g_psel && !penable_i) begin
      refuse_q <= refuse_now;
    end else if (!g_psel) begin
      refuse_q <= 1'b0;
    end
  end

  assign refuse = penable_i ? refuse_q : refuse_now;

  logic cmd_write;
  assign cmd_write = g_psel && penable_i && pwrite_i && !refuse_q &&
                     32'(waddr) == FLOW_CTRL_OFFSET;
  assign start_o   = cmd_write && nv_start;
  assign stop_o    = cmd_write && nv_stop;
  assign cmd_idx_o = nv_ctrl_index;

  logic blk_psel, blk_pready, blk_pslverr;
  logic [DataW-1:0] blk_prdata;

  assign blk_psel  = g_psel && !refuse;
  assign g_pready  = refuse ? (g_psel && penable_i) : blk_pready;
  assign g_pslverr = refuse ? (g_psel && penable_i) : blk_pslverr;
  assign g_prdata  = refuse ? '0 : blk_prdata;

  nic_dcqcn_reg_top u_reg_top (
    .clk          (clk_i),
    .arst_n       (rst_ni),
    .s_apb_psel   (blk_psel),
    .s_apb_penable(penable_i),
    .s_apb_pwrite (pwrite_i),
    .s_apb_pprot  (pprot_i),
    .s_apb_paddr  (paddr_i),
    .s_apb_pwdata (pwdata_i),
    .s_apb_pstrb  (pstrb_i),
    .s_apb_pready (blk_pready),
    .s_apb_prdata (blk_prdata),
    .s_apb_pslverr(blk_pslverr),
    .hwif_in      (hwif_i),
    .hwif_out     (hwif_o)
  );

  apb_checker #(
    .AddrW  (AddrW),
    .DataW  (DataW),
    .MaxWait(0)
  ) u_apb_checker (
    .clk_i,
    .rst_ni,
    .psel_i,
    .penable_i,
    .pwrite_i,
    .pprot_i,
    .paddr_i,
    .pwdata_i,
    .pstrb_i,
    .prdata_i (prdata_o),
    .pready_i (pready_o),
    .pslverr_i(pslverr_o)
  );

  // verilog_format: off
  // A refused write ends in its access phase with PSLVERR and the block saw
  // nothing of it.
  `NIC_ASSERT_IMP(a_refusal_is_error, psel_i && penable_i && refuse_q,
                  pready_o && pslverr_o && !blk_psel)
  // The parameters the reaction point reads are always in their ranges.
  `NIC_ASSERT(a_g_shift_in_range, hwif_o.ALPHA_CFG.G_SHIFT.value != '0 &&
                                  32'(hwif_o.ALPHA_CFG.G_SHIFT.value) <= $clog2(ALPHA_ONE))
  `NIC_ASSERT(a_timers_nonzero, hwif_o.ALPHA_TIMER.CYCLES.value != '0 &&
                                hwif_o.RATE_TIMER.CYCLES.value != '0 &&
                                hwif_o.BYTE_COUNTER.FLITS.value != '0)
  `NIC_ASSERT(a_rates_in_range, !rate_bad(hwif_o.RATE_AI.RATE.value) &&
                                !rate_bad(hwif_o.RATE_HAI.RATE.value) &&
                                !rate_bad(hwif_o.RATE_MIN.RATE.value))
  `NIC_ASSERT(a_flow_sel_in_range, 32'(hwif_o.FLOW_SEL.INDEX.value) < NUM_FLOWS)
  // A command reaches the data path for an entry that exists, never both at
  // once, and the register block takes the same write.
  `NIC_ASSERT_IMP(a_flow_cmd_valid, start_o || stop_o,
                  32'(cmd_idx_o) < NUM_FLOWS && !(start_o && stop_o) && blk_pready)
  `NIC_ASSERT_NXT(a_cnt_clear_one_cycle, hwif_o.CTRL.CNT_CLEAR.value, !hwif_o.CTRL.CNT_CLEAR.value)
  // verilog_format: on

endmodule
