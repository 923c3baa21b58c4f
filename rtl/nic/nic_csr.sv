// NIC control and status registers: the PeakRDL-generated register block
// (nic_csr_reg_top, from rtl/nic/nic_csr.rdl) behind lowRISC-style ports.
//
// The rest of the NIC instantiates this module, never the generated one, so
// that it sees clk_i/rst_ni/_i/_o names and one place states the APB rules.
// Register fields come and go as structs of the generated package:
//   hwif_o.<REG>.<FIELD>.value   software-written value; singlepulse fields
//                                (CTRL.SOFT_RESET, CTRL.CNT_CLEAR, HDQ_POST.POST)
//                                are high for the one cycle after the write
//   hwif_o.<REG>.<FIELD>.swmod   (SDQ_PROD, CQ_TAIL) one-cycle pulse in the
//                                cycle the write lands; .value has the new
//                                index from the next cycle on
//   hwif_i.<REG>.<FIELD>.next    hardware-driven value of a read-only field,
//                                or the set pulse of an interrupt cause
//   hwif_i.CNT_*.COUNT.incr      counter increment strobe
// The field list is in build/docs/registers/nic_csr.md (and the hwif report
// next to the generated SV).
//
// The HDQ descriptor window is an external memory of the generated block
// (Verilator 5.006 cannot build regblock's register arrays, which live in
// unpacked structs): its storage is here, and the engine reads it as the
// packed array hdq_window_o, word 0 at index 0. hwif_o.HDQ_WINDOW (the
// block's request to that memory) is for this wrapper only; the engine ties
// hwif_i.HDQ_WINDOW to 0, the wrapper answers it.
//
// APB4 completer, zero wait states: PREADY rises in the access phase of every
// transfer. PSLVERR is raised for an unaligned address (apb_unaligned_guard:
// nothing is written or read), an address outside the map, a write to a
// register without writable fields and a read of one without readable fields
// (the write is then ignored). PPROT is accepted and ignored: the block makes
// no privilege or security distinction.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_csr
  import nic_csr_reg_pkg::*;
(
  input  logic                                      clk_i,
  input  logic                                      rst_ni,

  // APB4 completer
  input  logic                                      psel_i,
  input  logic                                      penable_i,
  input  logic                                      pwrite_i,
  input  logic [2:0]                                pprot_i,
  input  logic [NIC_CSR_REG_TOP_MIN_ADDR_WIDTH-1:0] paddr_i,
  input  logic [NIC_CSR_REG_TOP_DATA_WIDTH-1:0]     pwdata_i,
  input  logic [NIC_CSR_REG_TOP_DATA_WIDTH/8-1:0]   pstrb_i,
  output logic [NIC_CSR_REG_TOP_DATA_WIDTH-1:0]     prdata_o,
  output logic                                      pready_o,
  output logic                                      pslverr_o,

  // Register fields to and from the engine
  input  nic_csr__in_t                              hwif_i,
  output nic_csr__out_t                             hwif_o,

  // HDQ descriptor window as written by software
  output logic [HDQ_WORDS-1:0][31:0]                hdq_window_o,

  // Interrupt line: any INTR_STATUS cause set whose INTR_ENABLE bit is set
  output logic                                      intr_o
);

  localparam int unsigned AddrWidth = NIC_CSR_REG_TOP_MIN_ADDR_WIDTH;
  localparam int unsigned HdqWords = HDQ_WORDS;
  localparam int unsigned WinAddrWidth = $bits(hwif_o.HDQ_WINDOW.addr);
  localparam int unsigned WinIdxWidth = WinAddrWidth - 2;

  `SF_STATIC_ASSERT(a_map_fits_addr, NIC_CSR_REG_TOP_SIZE <= (1 << AddrWidth))
  `SF_STATIC_ASSERT(a_window_index_width, $clog2(HdqWords) == WinIdxWidth)

  // ---------------------------------------------------------------------------
  // HDQ window storage (external memory of the register block)
  // ---------------------------------------------------------------------------
  nic_csr__in_t                   reg_hwif_in;
  logic [HdqWords-1:0][31:0]      hdq_window_q;
  logic [WinIdxWidth-1:0]         win_idx;
  logic win_wr, win_rd;

  assign win_idx = hwif_o.HDQ_WINDOW.addr[WinAddrWidth-1:2];
  assign win_wr  = hwif_o.HDQ_WINDOW.req && hwif_o.HDQ_WINDOW.req_is_wr;
  assign win_rd  = hwif_o.HDQ_WINDOW.req && !hwif_o.HDQ_WINDOW.req_is_wr;

  // One word per write, in place: a next-state copy of the whole 3072-bit
  // window would be made on every model evaluation (the write path depends on
  // the APB inputs), for a register written a few times per descriptor.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hdq_window_q <= '0;
    end else if (win_wr) begin
      hdq_window_q[win_idx] <= (hdq_window_q[win_idx] & ~hwif_o.HDQ_WINDOW.wr_biten) |
                               (hwif_o.HDQ_WINDOW.wr_data & hwif_o.HDQ_WINDOW.wr_biten);
    end
  end

  // Zero wait states: the window answers in the cycle it is asked.
  always_comb begin
    reg_hwif_in = hwif_i;
    reg_hwif_in.HDQ_WINDOW.wr_ack  = win_wr;
    reg_hwif_in.HDQ_WINDOW.rd_ack  = win_rd;
    reg_hwif_in.HDQ_WINDOW.rd_data = hdq_window_q[win_idx];
  end

  assign hdq_window_o = hdq_window_q;

  // The register block sees only aligned transfers; the guard answers the
  // others.
  logic blk_psel, blk_pready, blk_pslverr;
  logic [NIC_CSR_REG_TOP_DATA_WIDTH-1:0] blk_prdata;

  // PADDR bits below one data word: zero on an aligned access.
  localparam int unsigned CsrLsbW = $clog2(NIC_CSR_REG_TOP_DATA_WIDTH / 8);

  apb_unaligned_guard #(
    .DataW(NIC_CSR_REG_TOP_DATA_WIDTH)
  ) u_unaligned_guard (
    .clk_i,
    .rst_ni,
    .psel_i,
    .penable_i,
    .paddr_lsb_i  (paddr_i[CsrLsbW-1:0]),
    .prdata_o,
    .pready_o,
    .pslverr_o,
    .blk_psel_o   (blk_psel),
    .blk_prdata_i (blk_prdata),
    .blk_pready_i (blk_pready),
    .blk_pslverr_i(blk_pslverr)
  );

  nic_csr_reg_top u_reg_top (
    .clk           (clk_i),
    .arst_n        (rst_ni),
    .s_apb_psel    (blk_psel),
    .s_apb_penable (penable_i),
    .s_apb_pwrite  (pwrite_i),
    .s_apb_pprot   (pprot_i),
    .s_apb_paddr   (paddr_i),
    .s_apb_pwdata  (pwdata_i),
    .s_apb_pstrb   (pstrb_i),
    .s_apb_pready  (blk_pready),
    .s_apb_prdata  (blk_prdata),
    .s_apb_pslverr (blk_pslverr),
    .hwif_in       (reg_hwif_in),
    .hwif_out      (hwif_o)
  );

  assign intr_o = hwif_o.INTR_STATUS.intr;

  // ---------------------------------------------------------------------------
  // APB4 protocol rules (requester side too: a broken requester is reported
  // here, by name, instead of as a wrong register value later)
  // ---------------------------------------------------------------------------
  apb_checker #(
    .AddrW  (AddrWidth),
    .DataW  (NIC_CSR_REG_TOP_DATA_WIDTH),
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

  // Single-pulse controls stay high for exactly one cycle: the engine counts
  // each pulse as one event (one descriptor posted, one counter clear).
  // verilog_format: off
  `NIC_ASSERT_NXT(a_hdq_post_one_cycle, hwif_o.HDQ_POST.POST.value, !hwif_o.HDQ_POST.POST.value)
  `NIC_ASSERT_NXT(a_soft_reset_one_cycle, hwif_o.CTRL.SOFT_RESET.value,
                  !hwif_o.CTRL.SOFT_RESET.value)
  `NIC_ASSERT_NXT(a_cnt_clear_one_cycle, hwif_o.CTRL.CNT_CLEAR.value, !hwif_o.CTRL.CNT_CLEAR.value)
  `NIC_ASSERT_KNOWN(a_intr_known, intr_o)

  // The window is served here; the engine must leave its hwif inputs at 0 (a
  // non-zero value means it tries to serve the window too).
  `NIC_ASSERT(a_hdq_window_inputs_tied,
              !hwif_i.HDQ_WINDOW.rd_ack && !hwif_i.HDQ_WINDOW.wr_ack &&
              hwif_i.HDQ_WINDOW.rd_data == '0)
  // The register block asks the window only for addresses inside it.
  `NIC_ASSERT_IMP(a_hdq_window_index_in_range, hwif_o.HDQ_WINDOW.req, 32'(win_idx) < HdqWords)
  // verilog_format: on

endmodule
