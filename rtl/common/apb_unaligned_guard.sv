// APB4 completer front that refuses unaligned transfers.
//
// PeakRDL's APB4 front end drops the address bits below the data width, so
// on its own it would act on offset 0x10 for an access at 0x11. The project's
// register maps say an unaligned access is a bus error (docs/barrier-protocol.md
// section 8, docs/switch-datapath.md): this module sits between the port and
// the register block, keeps PSEL from the block for such a transfer and
// answers it itself in its access phase, PSLVERR with PRDATA 0, so nothing is
// written and no register is read (the same holds for every register: the
// refusal does not depend on the map). Aligned transfers pass unchanged; the
// module adds no wait state and no register (APB holds PADDR from setup to
// the end of the access phase).

`include "syncfab_assert.svh"

module apb_unaligned_guard #(
  parameter int unsigned  DataW = 32,
  // PADDR bits below the data width's bytes: the ones an aligned address
  // has at 0.
  localparam int unsigned LsbW  = $clog2(DataW / 8)
) (
  input  logic             clk_i,       // assertions only
  input  logic             rst_ni,      // assertions only

  // Requester side (the port)
  input  logic             psel_i,
  input  logic             penable_i,
  input  logic [LsbW-1:0]  paddr_lsb_i,  // PADDR[LsbW-1:0]
  output logic [DataW-1:0] prdata_o,
  output logic             pready_o,
  output logic             pslverr_o,

  // Register block side
  output logic             blk_psel_o,
  input  logic [DataW-1:0] blk_prdata_i,
  input  logic             blk_pready_i,
  input  logic             blk_pslverr_i
);

  `SF_STATIC_ASSERT(gen_data_width_check, DataW == 16 || DataW == 32)

  logic unaligned, refuse;
  assign unaligned  = paddr_lsb_i != '0;
  assign refuse     = psel_i && penable_i && unaligned;

  assign blk_psel_o = psel_i && !unaligned;
  assign pready_o   = unaligned ? refuse : blk_pready_i;
  assign pslverr_o  = unaligned ? refuse : blk_pslverr_i;
  assign prdata_o   = unaligned ? '0 : blk_prdata_i;

  // The refusal: the access phase ends at once with PSLVERR, and the block
  // saw nothing of the transfer.
  // verilog_format: off
  `SF_ASSERT_IMM_IMP(a_apb_unaligned_is_error, psel_i && penable_i && unaligned,
                     pready_o && pslverr_o && prdata_o == '0 && !blk_psel_o)
  // verilog_format: on

endmodule
