// Forwarding tables of the switch (docs/switch-datapath.md, "Lookup"): the
// LFT (unicast LID -> port) and the MFT (MLID - 0xC000 -> port mask), written
// and read by software through TBL_ADDR / TBL_WDATA / TBL_CMD / TBL_RDATA,
// looked up combinationally by every input at its header.
//
// A command takes effect at the edge after the TBL_CMD pulse; TBL_RDATA holds
// the entry from then on, so TBL_STATUS.BUSY is always 0. An index outside
// its table (or TABLE > 1) has no effect and raises INTR_STATUS.TBL_ERROR.

`include "syncfab_assert.svh"

module switch_tables #(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned LftEntries = syncfab_fmt_pkg::LFT_ENTRIES,
  parameter int unsigned MftEntries = syncfab_fmt_pkg::MFT_ENTRIES
) (
  input  logic                               clk_i,
  input  logic                               rst_ni,
  // Software access (CSR fields)
  input  logic [15:0]                        index_i,
  input  logic [1:0]                         table_i,
  input  logic [31:0]                        wdata_i,
  input  logic                               write_i,
  input  logic                               read_i,
  output logic [31:0]                        rdata_o,
  output logic                               error_o,   // one-cycle pulse
  // Lookups, one per input port
  input  logic [NumPorts-1:0][15:0]          dst_i,
  output logic [NumPorts-1:0]                hit_o,
  output logic [NumPorts-1:0][NumPorts-1:0]  mask_o
);

  import syncfab_fmt_pkg::*;

  `SF_STATIC_ASSERT(gen_lft_check, LftEntries >= 1 && LftEntries <= 49152)
  `SF_STATIC_ASSERT(gen_mft_check, MftEntries >= 1 && MftEntries <= 16384)
  `SF_STATIC_ASSERT(gen_ports_check, NumPorts >= 1 && NumPorts <= 8)

  localparam int unsigned LftW = (LftEntries > 1) ? $clog2(LftEntries) : 1;
  localparam int unsigned MftW = (MftEntries > 1) ? $clog2(MftEntries) : 1;

  typedef struct packed {
    logic       valid;
    logic [7:0] port;
  } lft_e_t;
  typedef struct packed {
    logic                valid;
    logic [NumPorts-1:0] mask;
  } mft_e_t;

  lft_e_t lft_q [LftEntries];
  mft_e_t mft_q [MftEntries];
  logic [LftEntries-1:0] lft_valid_q;  // valid bits with reset (entries without)
  logic [MftEntries-1:0] mft_valid_q;
  logic [31:0] rdata_q;

  logic lft_sel, mft_sel, in_range;
  assign lft_sel = table_i == 2'd0;
  assign mft_sel = table_i == 2'd1;
  assign in_range = (lft_sel && 32'(index_i) < LftEntries) ||
                    (mft_sel && 32'(index_i) < MftEntries);
  assign error_o = (write_i || read_i) && !in_range;

  always_ff @(posedge clk_i) begin
    if (write_i && lft_sel && in_range)
      lft_q[index_i[LftW-1:0]] <= '{valid: wdata_i[31], port: wdata_i[7:0]};
    if (write_i && mft_sel && in_range)
      mft_q[index_i[MftW-1:0]] <= '{valid: wdata_i[31], mask: wdata_i[NumPorts-1:0]};
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lft_valid_q <= '0;
      mft_valid_q <= '0;
      rdata_q <= '0;
    end else begin
      if (write_i && lft_sel && in_range) lft_valid_q[index_i[LftW-1:0]] <= wdata_i[31];
      if (write_i && mft_sel && in_range) mft_valid_q[index_i[MftW-1:0]] <= wdata_i[31];
      if (read_i && in_range) begin
        if (lft_sel) begin
          rdata_q <= lft_valid_q[index_i[LftW-1:0]] ?
              {1'b1, 23'd0, lft_q[index_i[LftW-1:0]].port} : 32'd0;
        end else begin
          rdata_q <= mft_valid_q[index_i[MftW-1:0]] ?
              {1'b1, 31'(mft_q[index_i[MftW-1:0]].mask)} : 32'd0;
        end
      end
    end
  end
  assign rdata_o = rdata_q;

  for (genvar i = 0; i < NumPorts; i++) begin : gen_lookup
    logic [15:0] midx;
    logic [LftW-1:0] lidx;
    assign midx = dst_i[i] - MLID_BASE;
    assign lidx = dst_i[i][LftW-1:0];
    always_comb begin
      hit_o[i] = 1'b0;
      mask_o[i] = '0;
      if (dst_i[i] >= MLID_BASE) begin
        if (32'(midx) < MftEntries && mft_valid_q[midx[MftW-1:0]]) begin
          mask_o[i] = mft_q[midx[MftW-1:0]].mask & ~(NumPorts'(1) << i);
          hit_o[i] = mask_o[i] != '0;
        end
      end else if (32'(dst_i[i]) < LftEntries && lft_valid_q[lidx] &&
                   32'(lft_q[lidx].port) < NumPorts) begin
        mask_o[i] = NumPorts'(1) << lft_q[lidx].port;
        hit_o[i] = 1'b1;
      end
    end
  end

  for (genvar i = 0; i < NumPorts; i++) begin : gen_lookup_rules
    `SF_ASSERT(a_hit_iff_mask, hit_o[i] == (mask_o[i] != '0))
    `SF_ASSERT(a_mc_never_back, dst_i[i] >= MLID_BASE |-> !mask_o[i][i])
  end

  logic unused_tables;
  assign unused_tables = ^{wdata_i[30:NumPorts], index_i};

endmodule
