// Forwarding tables of the switch (docs/switch-datapath.md, "Lookup"): the
// LFT (unicast LID -> port or port group), the MFT (MLID - 0xC000 -> port
// mask) and the port groups (group -> member mask, docs/switch-ecmp.md),
// written and read by software through TBL_ADDR / TBL_WDATA / TBL_CMD /
// TBL_RDATA, looked up combinationally by every input at its header.
//
// An LFT entry naming a group picks one member per packet: the members in
// service (PORT_UP) other than the input, and of those the j-th, j = (h x n)
// >> 16 for the n members and the header's flow hash h (switch_pkg), so a
// flow keeps one member while PORT_UP and the tables stay. GROUP_SKIPS
// counts the packets (lookups an input uses, lk_valid_i) whose group had a
// member out of service.
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
  parameter int unsigned PortGroups = PORT_GROUPS,
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
  // Port groups: the ports in service (PORT_UP); GROUP_SKIPS and its clear
  input  port_up_t                   port_up_i,
  input  logic                       cnt_clear_i,
  output cnt_value_t                 group_skips_o,
  // Lookups, one per input port; valid: the input uses the answer
  input  logic [NumPorts-1:0]        lk_valid_i,
  input  lk_req_t [NumPorts-1:0]     lk_req_i,
  output lk_rsp_t                   lk_rsp_o [NumPorts]
);

  `SF_STATIC_ASSERT(gen_lft_check, LftEntries >= 1 && LftEntries <= 49152)
  `SF_STATIC_ASSERT(gen_mft_check, MftEntries >= 1 && MftEntries <= 16384)
  `SF_STATIC_ASSERT(gen_ports_check, NumPorts >= 1 && NumPorts <= MaxPorts)
  `SF_STATIC_ASSERT(gen_port_up_check, NumPorts <= $bits(port_up_t))
  `SF_STATIC_ASSERT(gen_groups_check, PortGroups >= 1 && PortGroups <= 2 ** $bits(port_num_t))

  // The flow hash's check value over the ASCII digits "123456789" and the
  // example of docs/switch-ecmp.md section 2.
  function automatic flow_hash_t crc_of_digits();
    flow_hash_t crc = CrcInit;
    for (int d = 1; d <= 9; d++) crc = crc16_byte(crc, 8'(32'h30 + 32'(d)));
    return crc;
  endfunction
  `SF_STATIC_ASSERT(gen_crc_check_value, crc_of_digits() == 16'h29B1)
  `SF_STATIC_ASSERT(gen_flow_hash_example, flow_hash(
                    '{src: 16'h0001, dst: 16'h0002, flow : 20'h00003}) == 16'h6965)

  localparam int unsigned LftW = (LftEntries > 1) ? $clog2(LftEntries) : 1;
  localparam int unsigned MftW = (MftEntries > 1) ? $clog2(MftEntries) : 1;
  localparam int unsigned GrpW = (PortGroups > 1) ? $clog2(PortGroups) : 1;
  // A count of members, 0 .. NumPorts.
  localparam int unsigned MembW = $clog2(NumPorts + 1);
  typedef logic [MembW-1:0] memb_t;

  typedef struct packed {
    logic      group;
    port_num_t port;  // a port, or with group a port group
  } lft_e_t;
  typedef struct packed {
    logic       valid;
    port_mask_t mask;
  } mft_e_t;

  lft_e_t lft_q [LftEntries];
  mft_e_t mft_q [MftEntries];
  port_mask_t grp_q [PortGroups];
  logic [LftEntries-1:0] lft_valid_q;  // valid bits with reset (entries without)
  logic [MftEntries-1:0] mft_valid_q;
  logic [PortGroups-1:0] grp_valid_q;
  tbl_data_t rdata_q;
  lft_data_t lft_wdata;
  mft_data_t mft_wdata;
  assign lft_wdata = lft_data_t'(wdata_i);
  assign mft_wdata = mft_data_t'(wdata_i);

  logic lft_sel, mft_sel, cb_sel, ring_sel, grp_sel, in_range;
  assign lft_sel = table_i == TblLft;
  assign grp_sel = table_i == TblGroups;
  assign mft_sel = table_i == TblMft;
  assign cb_sel = table_i == TblCbChildren || table_i == TblCbCtrl;
  assign ring_sel = table_i == TblCbRing || table_i == TblCbExpect;
  assign in_range = (lft_sel && 32'(index_i) < LftEntries) ||
                    ((mft_sel || cb_sel) && 32'(index_i) < MftEntries) ||
                    (ring_sel && 32'(index_i) < (MftEntries << CbTblPhaseW)) ||
                    (grp_sel && 32'(index_i) < PortGroups);
  assign error_o = (write_i || read_i) && !in_range;

  always_ff @(posedge clk_i) begin
    if (write_i && lft_sel && in_range) begin
      lft_q[index_i[LftW-1:0]] <= '{group: lft_wdata.group, port: lft_wdata.port};
    end
    if (write_i && mft_sel && in_range) begin
      mft_q[index_i[MftW-1:0]] <= '{valid: mft_wdata.valid, mask: mft_wdata.mask[NumPorts-1:0]};
    end
    if (write_i && grp_sel && in_range) begin
      grp_q[index_i[GrpW-1:0]] <= mft_wdata.mask[NumPorts-1:0];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lft_valid_q <= '0;
      mft_valid_q <= '0;
      grp_valid_q <= '0;
      rdata_q <= '0;
    end else begin
      if (write_i && lft_sel && in_range) lft_valid_q[index_i[LftW-1:0]] <= lft_wdata.valid;
      if (write_i && mft_sel && in_range) mft_valid_q[index_i[MftW-1:0]] <= mft_wdata.valid;
      if (write_i && grp_sel && in_range) grp_valid_q[index_i[GrpW-1:0]] <= mft_wdata.valid;
      if (read_i && in_range) begin
        if (lft_sel) begin
          rdata_q <= lft_valid_q[index_i[LftW-1:0]] ? tbl_data_t'(lft_data_t
'{
              valid: 1'b1,
              group: lft_q[index_i[LftW-1:0]].group,
              rsvd: '0,
              port: lft_q[index_i[LftW-1:0]].port
          }
          ) : '0;
        end else if (cb_sel || ring_sel) begin
          rdata_q <= cb_rdata_i;
        end else if (grp_sel) begin
          rdata_q <= grp_valid_q[index_i[GrpW-1:0]] ? tbl_data_t'(mft_data_t
'{valid: 1'b1, rsvd: '0, mask: MaxPorts'(grp_q[index_i[GrpW-1:0]])}
          ) : '0;
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

  // The j-th set bit of a mask (j below its count of set bits).
  function automatic port_mask_t nth_member(port_mask_t live, memb_t j);
    port_mask_t pick = '0;
    memb_t seen = '0;
    for (int p = 0; p < NumPorts; p++) begin
      if (live[p]) begin
        if (seen == j) pick[p] = 1'b1;
        seen = seen + memb_t'(1);
      end
    end
    return pick;
  endfunction

  port_mask_t port_up;
  assign port_up = port_up_i[NumPorts-1:0];

  logic [NumPorts-1:0] skip_ev;
  for (genvar i = 0; i < NumPorts; i++) begin : gen_lookup
    lid_t dst, midx;
    logic [LftW-1:0] lidx;
    lft_e_t lft;
    logic lft_hit, grp_ok;
    logic [GrpW-1:0] gidx;
    port_mask_t others, members, live;
    memb_t n, j;
    flow_hash_t h;
    lk_rsp_t rsp;
    assign dst = lk_req_i[i].dst;
    assign midx = dst - MLID_BASE;
    assign lidx = dst[LftW-1:0];
    assign lft = lft_q[lidx];
    assign lft_hit = dst < MLID_BASE && 32'(dst) < LftEntries && lft_valid_q[lidx];
    // A group entry: its group exists and is valid; its members other than
    // the input, those in service, and the member the flow hash picks.
    assign gidx = lft.port[GrpW-1:0];
    assign grp_ok = 32'(lft.port) < PortGroups && grp_valid_q[gidx];
    assign others = ~(NumPorts'(1) << i);
    assign members = grp_ok ? grp_q[gidx] & others : '0;
    assign live = members & port_up;
    assign n = memb_t'($countones(live));
    assign h = flow_hash(lk_req_i[i]);
    assign j = memb_t'((32'(h) * 32'(n)) >> FlowHashW);
    always_comb begin
      rsp = '0;
      if (dst >= MLID_BASE) begin
        if (32'(midx) < MftEntries && mft_valid_q[midx[MftW-1:0]]) begin
          rsp.mask = mft_q[midx[MftW-1:0]].mask & others;
          rsp.hit = rsp.mask != '0;
        end
      end else if (lft_hit && lft.group) begin
        rsp.skip = (members & ~port_up) != '0;
        rsp.mask = nth_member(live, j);
        rsp.hit = n != '0;
      end else if (lft_hit && 32'(lft.port) < NumPorts) begin
        rsp.mask = NumPorts'(1) << lft.port;
        rsp.hit = 1'b1;
      end
    end
    assign lk_rsp_o[i] = rsp;
    assign skip_ev[i] = lk_valid_i[i] && rsp.skip;

    // Immediate forms: evaluated once per clock edge, without sampled copies.
    `SF_ASSERT_IMM(a_hit_iff_mask, rsp.hit == (rsp.mask != '0))
    `SF_ASSERT_IMM(a_mc_never_back, dst < MLID_BASE || !rsp.mask[i])
    // A group's answer is one member in service other than the input; a
    // group that does not exist, is not valid or has no live member misses.
    `SF_ASSERT_IMM(a_group_one_live_member, !(lft_hit && lft.group && rsp.hit) || ($onehot(rsp.mask
                   ) && (rsp.mask & ~live) == '0 && !rsp.mask[i]))
    `SF_ASSERT_IMM(a_group_invalid_miss, !(lft_hit && lft.group && !grp_ok) || !rsp.hit)
    `SF_ASSERT_IMM(a_group_no_live_miss, !(lft_hit && lft.group && n == '0) || !rsp.hit)
    `SF_ASSERT_IMM(a_group_pick_in_range, n == '0 || j < n)
    // Only a group entry skips members.
    `SF_ASSERT_IMM(a_skip_only_group, !rsp.skip || (lft_hit && lft.group && grp_ok))
  end

  // GROUP_SKIPS: every input's packet counts, several in one cycle.
  cnt_value_t group_skips_q;
  cnt_value_t skip_inc;
  assign skip_inc = cnt_value_t'($countones(skip_ev));
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      group_skips_q <= '0;
    end else if (cnt_clear_i) begin
      group_skips_q <= '0;
    end else if (skip_ev != '0) begin
      group_skips_q <= (group_skips_q > '1 - skip_inc) ? '1 : group_skips_q + skip_inc;
    end
  end
  assign group_skips_o = group_skips_q;

  logic unused_tables;
  assign unused_tables = ^{lft_wdata.rsvd, mft_wdata.rsvd, mft_wdata.mask, index_i, cb_mft_idx_i,
                          port_up_i};

endmodule
