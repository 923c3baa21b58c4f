// APB4 protocol checker: assertions only, no outputs.
//
// Instantiated beside every APB4 completer of the project (nic_csr,
// switch_top) on the completer's own port signals, so that a broken
// requester is reported by rule name at the port instead of as a wrong
// register value later, and a completer that breaks the handshake is caught
// where it happens.
//
// Requester rules (AMBA APB4): a transfer is one setup cycle (PSEL without
// PENABLE), then the access phase (PSEL and PENABLE) for as long as PREADY
// is low; PENABLE never without PSEL, and never as the first cycle of a
// transfer; address, direction and protection hold from setup to the end of
// the access phase, and so do write data and strobes for a write; a read
// drives no strobes.
//
// Completer rules, as the project's completers answer: PREADY only in an
// access phase, PSLVERR only with PREADY, and at most MaxWait wait states
// (both project completers have none: PeakRDL's APB4 front end answers in
// the first access cycle).
//
// The rules use the immediate form (SF_ASSERT_IMM*): the checker sits in
// blocks that must simulate fast, and its registers move only while PSEL is
// high, so an idle bus costs no work here.

`include "syncfab_assert.svh"

module apb_checker #(
  parameter int unsigned  AddrW   = 12,
  parameter int unsigned  DataW   = 32,
  parameter int unsigned  MaxWait = 0,
  localparam int unsigned StrbW   = DataW / 8
) (
  input logic             clk_i,
  input logic             rst_ni,
  input logic             psel_i,
  input logic             penable_i,
  input logic             pwrite_i,
  input logic [2:0]       pprot_i,
  input logic [AddrW-1:0] paddr_i,
  input logic [DataW-1:0] pwdata_i,
  input logic [StrbW-1:0] pstrb_i,
  input logic [DataW-1:0] prdata_i,
  input logic             pready_i,
  input logic             pslverr_i
);

  `SF_STATIC_ASSERT(gen_data_width_check, DataW == 8 || DataW == 16 || DataW == 32)
  `SF_STATIC_ASSERT(gen_addr_width_check, AddrW >= 1 && AddrW <= 32)

`ifndef SYNTHESIS
  logic setup, access, done;
  assign setup  = psel_i && !penable_i;
  assign access = psel_i && penable_i;
  assign done   = access && pready_i;

  // The transfer in progress at the last edge (a setup cycle or a wait
  // state) and what its requester presented then.
  logic busy_q, write_q;
  logic [2:0]       prot_q;
  logic [AddrW-1:0] addr_q;
  logic [DataW-1:0] wdata_q;
  logic [StrbW-1:0] strb_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q <= 1'b0;
    end else if (psel_i || busy_q) begin
      busy_q <= psel_i && !done;
    end
  end

  always_ff @(posedge clk_i) begin
    if (psel_i) begin
      write_q <= pwrite_i;
      prot_q  <= pprot_i;
      addr_q  <= paddr_i;
      wdata_q <= pwdata_i;
      strb_q  <= pstrb_i;
    end
  end

  // Requester.
  // verilog_format: off
  `SF_ASSERT_IMM_IMP(a_apb_penable_needs_psel, penable_i, psel_i)
  `SF_ASSERT_IMM_NXT(a_apb_setup_then_access, setup, access)
  `SF_ASSERT_IMM_NXT(a_apb_access_held_until_ready, access && !pready_i, access)
  // PENABLE rises only in the cycle after a setup (or stays in a wait
  // state): no access phase without its setup, none right after a transfer
  // ends.
  `SF_ASSERT_IMM_IMP(a_apb_access_after_setup, access, busy_q)
  `SF_ASSERT_IMM_IMP(a_apb_ctrl_stable, busy_q && psel_i,
                     paddr_i == addr_q && pwrite_i == write_q && pprot_i == prot_q)
  `SF_ASSERT_IMM_IMP(a_apb_wdata_stable, busy_q && psel_i && pwrite_i,
                     pwdata_i == wdata_q && pstrb_i == strb_q)
  `SF_ASSERT_IMM_IMP(a_apb_no_strb_on_read, psel_i && !pwrite_i, pstrb_i == '0)
  `SF_ASSERT_IMM_KNOWN(a_apb_psel_known, psel_i)
  `SF_ASSERT_IMM_IMP(a_apb_ctrl_known, psel_i,
                     !$isunknown({penable_i, pwrite_i, pprot_i, paddr_i}))

  // Completer.
  `SF_ASSERT_IMM_IMP(a_apb_ready_in_access, pready_i, access)
  `SF_ASSERT_IMM_IMP(a_apb_err_with_ready, pslverr_i, pready_i)
  `SF_ASSERT_IMM_KNOWN(a_apb_ready_known, pready_i)
  `SF_ASSERT_IMM_IMP(a_apb_rdata_known, done && !pwrite_i, !$isunknown({prdata_i, pslverr_i}))
  // verilog_format: on
  if (MaxWait == 0) begin : gen_no_wait
    `SF_ASSERT_IMM_IMP(a_apb_wait_bounded, access, pready_i)
  end else begin : gen_wait
    // Wait states of the access phase so far.
    localparam int unsigned WaitW = $clog2(MaxWait + 1);
    logic [WaitW-1:0] waits_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        waits_q <= '0;
      end else if (access && !pready_i) begin
        if (32'(waits_q) < MaxWait) waits_q <= waits_q + WaitW'(1);
      end else if (waits_q != '0) begin
        waits_q <= '0;
      end
    end
    `SF_ASSERT_IMM_IMP(a_apb_wait_bounded, access && !pready_i, 32'(waits_q) < MaxWait)
  end
`endif  // SYNTHESIS

endmodule
