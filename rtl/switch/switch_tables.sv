// Forwarding tables of the switch (docs/switch-datapath.md, "Lookup"): the
// LFT (unicast LID -> port) and the MFT (MLID - 0xC000 -> port mask), written
// and read by software through TBL_ADDR / TBL_WDATA / TBL_CMD / TBL_RDATA,
// looked up combinationally by every input at its header.
//
// A command takes effect at the edge after the TBL_CMD pulse; TBL_RDATA holds
// the entry from then on, so TBL_STATUS.BUSY is always 0. An index outside
// its table has no effect and raises INTR_STATUS.TBL_ERROR. The combine
// tables (TABLE 2 and 3, one entry per MFT entry; the ring tables 4 and 5,
// four words per MFT entry, one per phase) live in switch_combine:
// this block checks their index, holds what a read of them returns
// (cb_rdata_i, the entry index_i names) and gives the combine unit the MFT
// entry of the packet it decides on (cb_mft_*).

`include "syncfab_assert.svh"
`include "switch_types.svh"

module switch_tables
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned LftEntries = LFT_ENTRIES,
  parameter int unsigned MftEntries = MFT_ENTRIES,
  localparam type port_mask_t = logic [NumPorts-1:0],
  localparam type lk_rsp_t = `SF_SWITCH_LK_RSP_T
) (
  input  logic                       clk_i,
  input  logic                       rst_ni,
  // Software access (CSR fields)
  input  tbl_index_t                 index_i,
  input  tbl_sel_t                   table_i,
  input  tbl_data_t                  wdata_i,
  input  logic                       write_i,
  input  logic                       read_i,
  output tbl_data_t                  rdata_o,
  output logic                       error_o,   // one-cycle pulse
  input  tbl_data_t                  cb_rdata_i,  // combine entry index_i (TABLE 2 .. 5)
  // The MFT entry the combine unit reads (index cb_mft_idx_i)
  input  tbl_index_t                 cb_mft_idx_i,
  output logic                       cb_mft_valid_o,
  output port_mask_t                 cb_mft_mask_o,
  // Lookups, one per input port
  input  lid_t [NumPorts-1:0]        lk_dst_i,
  output lk_rsp_t                   lk_rsp_o [NumPorts]
);

  `SF_STATIC_ASSERT(gen_lft_check, LftEntries >= 1 && LftEntries <= 49152)
  `SF_STATIC_ASSERT(gen_mft_check, MftEntries >= 1 && MftEntries <= 16384)
  `SF_STATIC_ASSERT(gen_ports_check, NumPorts >= 1 && NumPorts <= MaxPorts)

  localparam int unsigned LftW = (LftEntries > 1) ? $clog2(LftEntries) : 1;
  localparam int unsigned MftW = (MftEntries > 1) ? $clog2(MftEntries) : 1;

  typedef struct packed {
    logic      valid;
    port_num_t port;
  } lft_e_t;
  typedef struct packed {
    logic       valid;
    port_mask_t mask;
  } mft_e_t;

  lft_e_t lft_q [LftEntries];
  mft_e_t mft_q [MftEntries];
  logic [LftEntries-1:0] lft_valid_q;  // valid bits with reset (entries without)
  logic [MftEntries-1:0] mft_valid_q;
  tbl_data_t rdata_q;
  lft_data_t lft_wdata;
  mft_data_t mft_wdata;
  assign lft_wdata = lft_data_t'(wdata_i);
  assign mft_wdata = mft_data_t'(wdata_i);

  logic lft_sel, mft_sel, cb_sel, ring_sel, in_range;
  assign lft_sel = table_i == TblLft;
  assign mft_sel = table_i == TblMft;
  assign cb_sel = table_i == TblCbChildren || table_i == TblCbCtrl;
  assign ring_sel = table_i == TblCbRing || table_i == TblCbExpect;
  assign in_range = (lft_sel && 32'(index_i) < LftEntries) ||
                    ((mft_sel || cb_sel) && 32'(index_i) < MftEntries) ||
                    (ring_sel && 32'(index_i) < (MftEntries << CbTblPhaseW));
  assign error_o = (write_i || read_i) && !in_range;

  always_ff @(posedge clk_i) begin
    if (write_i && lft_sel && in_range) begin
      lft_q[index_i[LftW-1:0]] <= '{valid: lft_wdata.valid, port: lft_wdata.port};
    end
    if (write_i && mft_sel && in_range) begin
      mft_q[index_i[MftW-1:0]] <= '{valid: mft_wdata.valid, mask: mft_wdata.mask[NumPorts-1:0]};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lft_valid_q <= '0;
      mft_valid_q <= '0;
      rdata_q <= '0;
    end else begin
      if (write_i && lft_sel && in_range) lft_valid_q[index_i[LftW-1:0]] <= lft_wdata.valid;
      if (write_i && mft_sel && in_range) mft_valid_q[index_i[MftW-1:0]] <= mft_wdata.valid;
      if (read_i && in_range) begin
        if (lft_sel) begin
          rdata_q <= lft_valid_q[index_i[LftW-1:0]] ? tbl_data_t'(lft_data_t
'{valid: 1'b1, rsvd: '0, port: lft_q[index_i[LftW-1:0]].port}
          ) : '0;
        end else if (cb_sel || ring_sel) begin
          rdata_q <= cb_rdata_i;
        end else begin
          rdata_q <= mft_valid_q[index_i[MftW-1:0]] ? tbl_data_t'(mft_data_t
'{valid: 1'b1, rsvd: '0, mask: MaxPorts'(mft_q[index_i[MftW-1:0]].mask)}
          ) : '0;
        end
      end
    end
  end
  assign rdata_o = rdata_q;

  logic [MftW-1:0] cb_idx;
  assign cb_idx = cb_mft_idx_i[MftW-1:0];
  assign cb_mft_valid_o = 32'(cb_mft_idx_i) < MftEntries && mft_valid_q[cb_idx];
  assign cb_mft_mask_o = mft_q[cb_idx].mask;

  for (genvar i = 0; i < NumPorts; i++) begin : gen_lookup
    lid_t midx;
    logic [LftW-1:0] lidx;
    lk_rsp_t rsp;
    assign midx = lk_dst_i[i] - MLID_BASE;
    assign lidx = lk_dst_i[i][LftW-1:0];
    always_comb begin
      rsp = '0;
      if (lk_dst_i[i] >= MLID_BASE) begin
        if (32'(midx) < MftEntries && mft_valid_q[midx[MftW-1:0]]) begin
          rsp.mask = mft_q[midx[MftW-1:0]].mask & ~(NumPorts'(1) << i);
          rsp.hit = rsp.mask != '0;
        end
      end else if (32'(lk_dst_i[i]) < LftEntries && lft_valid_q[lidx] &&
                   32'(lft_q[lidx].port) < NumPorts) begin
        rsp.mask = NumPorts'(1) << lft_q[lidx].port;
        rsp.hit = 1'b1;
      end
    end
    assign lk_rsp_o[i] = rsp;

    // Immediate forms: evaluated once per clock edge, without sampled copies.
    `SF_ASSERT_IMM(a_hit_iff_mask, rsp.hit == (rsp.mask != '0))
    `SF_ASSERT_IMM(a_mc_never_back, lk_dst_i[i] < MLID_BASE || !rsp.mask[i])
  end

  logic unused_tables;
  assign unused_tables = ^{lft_wdata.rsvd, mft_wdata.rsvd, mft_wdata.mask, index_i, cb_mft_idx_i};

endmodule
