// Test top of sync_fifo with a struct word type (T = a 71-bit packed struct,
// Depth 3): the type parameter carries a struct wider than two C++ words
// through storage and ports, field by field.
//
// The ports are plain vectors (the struct lives inside this module, so the
// C++ side sees a 71-bit word); rdata_tag_o is one field of the head read by
// name, which shows the struct reached the read side with its layout.

module sync_fifo_typed_tb #(
  parameter int unsigned  Depth = 3,
  localparam int unsigned WordW = 71,
  localparam int unsigned CntW  = $clog2(Depth + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             clr_i,
  input  logic             wvalid_i,
  output logic             wready_o,
  input  logic [WordW-1:0] wdata_i,
  output logic             rvalid_o,
  input  logic             rready_i,
  output logic [WordW-1:0] rdata_o,
  output logic [5:0]       rdata_tag_o,
  output logic [CntW-1:0]  count_o
);

  typedef struct packed {
    logic [5:0]  tag;
    logic [63:0] payload;
    logic        last;
  } word_t;

  word_t wdata, rdata;

  assign wdata = word_t'(wdata_i);

  sync_fifo #(
    .T    (word_t),
    .Depth(Depth)
  ) u_fifo (
    .clk_i,
    .rst_ni,
    .clr_i,
    .wvalid_i,
    .wready_o,
    .wdata_i (wdata),
    .rvalid_o,
    .rready_i,
    .rdata_o (rdata),
    .count_o
  );

  assign rdata_o     = rdata;
  assign rdata_tag_o = rdata.tag;

endmodule
