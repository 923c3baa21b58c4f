// The switch's combine unit (docs/group-barrier.md, section 5; place and
// latency in docs/switch-datapath.md, "Combine unit"): one combine entry per
// MFT entry, programmed through the table command path (TBL_ADDR.TABLE 2:
// children, 3: control), and the decision for the COMB_ARRIVE or
// COMB_RELEASE the enqueue engine takes now: its copies (a port mask, maybe
// empty), the header they carry and whether the packet counts as
// DROP_NO_ROUTE.
//
// The decision is combinational, in the cycle the engine takes the packet
// from its input's pending FIFO, and the entry's new epoch and arrivals are
// written at that cycle's edge: the engine takes one packet at a time, so an
// entry's read-modify-write is never interleaved with another packet's. A
// packet reads one entry, by index, and the MFT entry of the same index
// (switch_tables): no scan of the table.
//
// Partners. The children of a group often arrive together; taking their
// arrivals one per engine cycle would decide the last one c - 1 cycles late.
// So when the engine's packet is a new arrival of the entry's epoch, the
// other inputs whose pending head is a one-flit COMB_ARRIVE of the same MLID
// and epoch (part_i, one header compare per input in switch_top) and whose
// port is a child not yet arrived are absorbed with it, in the same
// read-modify-write: their ports join the arrivals, they are popped and make
// no copy. If they complete the children, the engine's packet is the one
// emitted, as if it had come last. Any other pending head waits for its own
// engine cycle.
//
// A table write takes effect at the edge after the TBL_CMD pulse, as in
// switch_tables (which checks the index and holds TBL_RDATA); a write of the
// control word to the entry a packet updates in the same cycle wins over the
// packet's update. Writing the children also clears the arrivals (a set of
// arrivals is only meaningful for the children it was counted against; the
// driver writes the children before the control word, which clears them
// anyway).

`include "syncfab_assert.svh"
`include "switch_types.svh"

module switch_combine
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned MftEntries = MFT_ENTRIES,
  localparam int unsigned PortW = `SF_SWITCH_PORT_W(NumPorts),
  localparam type port_t = logic [PortW-1:0],
  localparam type port_mask_t = logic [NumPorts-1:0]
) (
  input  logic       clk_i,
  input  logic       rst_ni,
  // Software access (CSR fields, as switch_tables gets them)
  input  tbl_index_t index_i,
  input  tbl_sel_t   table_i,
  input  tbl_data_t  wdata_i,
  input  logic       write_i,
  output tbl_data_t  rdata_o,      // entry index_i of TABLE 2 or 3 now
  // The MFT entry of the packet's MLID (switch_tables, combinational)
  output tbl_index_t mft_idx_o,
  input  logic       mft_valid_i,
  input  port_mask_t mft_mask_i,
  // The COMB packet the enqueue engine takes now, from input in_i
  input  logic       req_i,
  input  port_t      in_i,
  input  pkt_hdr_t   hdr_i,
  // Inputs whose pending head is a one-flit COMB_ARRIVE with hdr_i's dst_lid
  // and epoch (in_i's own bit ignored), and those of them absorbed now
  input  port_mask_t part_i,
  output port_mask_t absorb_o,
  // Its copies (none: absorbed or dropped), DROP_NO_ROUTE, the emitted header
  output port_mask_t mask_o,
  output logic       drop_o,
  output pkt_hdr_t   hdr_o
);

  `SF_STATIC_ASSERT(gen_mft_check, MftEntries >= 1 && MftEntries <= 16384)
  `SF_STATIC_ASSERT(gen_ports_check, NumPorts >= 1 && NumPorts <= MaxPorts)
  `SF_STATIC_ASSERT(gen_ctrl_layout, $bits(cb_ctrl_data_t) == $bits(tbl_data_t))
  `SF_STATIC_ASSERT(gen_epoch_width, $bits(epoch_t) == PKT_HDR_EPOCH_W)

  localparam int unsigned MftW = (MftEntries > 1) ? $clog2(MftEntries) : 1;
  typedef logic [MftW-1:0] idx_t;

  // The control word's fields and the state the unit advances.
  typedef struct packed {
    logic       root;
    port_num_t  parent;
    epoch_t     epoch;
    port_mask_t arrived;
  } cb_e_t;

  // ---------------------------------------------------------------------------
  // Storage (no reset but VALID: an entry is read only once it is valid)
  // ---------------------------------------------------------------------------
  cb_e_t ent_q [MftEntries];
  port_mask_t children_q [MftEntries];
  logic [MftEntries-1:0] valid_q;

  logic w_in_range, w_children, w_ctrl;
  idx_t widx;
  cb_ctrl_data_t wctrl;
  assign w_in_range = 32'(index_i) < MftEntries;
  assign widx = index_i[MftW-1:0];
  assign wctrl = cb_ctrl_data_t'(wdata_i);
  assign w_children = write_i && w_in_range && table_i == TblCbChildren;
  assign w_ctrl = write_i && w_in_range && table_i == TblCbCtrl;

  cb_ctrl_data_t rd_ctrl;
  assign rd_ctrl = '{
          valid: 1'b1,
          root: ent_q[widx].root,
          rsvd: '0,
          epoch: ent_q[widx].epoch,
          parent: ent_q[widx].parent
      };
  always_comb begin
    rdata_o = '0;
    if (w_in_range && table_i == TblCbChildren) begin
      rdata_o = tbl_data_t'(children_q[widx]);
    end else if (w_in_range && table_i == TblCbCtrl && valid_q[widx]) begin
      rdata_o = tbl_data_t'(rd_ctrl);
    end
  end

  // ---------------------------------------------------------------------------
  // Decision
  // ---------------------------------------------------------------------------
  lid_t mlid_off;  // the entry: MLID - MLID_BASE
  idx_t idx;
  logic in_range;
  cb_e_t ent;
  port_mask_t children, in_bit, par_bit, a_new;
  port_mask_t partners;  // absorbed with the packet if it is taken now
  logic parent_ok, consistent, is_arrive, e_cur, e_prev, in_is_parent, fresh;
  assign mlid_off = hdr_i.dst_lid - MLID_BASE;
  assign idx = mlid_off[MftW-1:0];
  assign in_range = hdr_i.dst_lid >= MLID_BASE && 32'(mlid_off) < MftEntries;
  assign mft_idx_o = tbl_index_t'(mlid_off);
  assign ent = ent_q[idx];
  assign children = children_q[idx];
  assign in_bit = port_mask_t'(1) << in_i;
  assign parent_ok = 32'(ent.parent) < NumPorts;
  assign par_bit = parent_ok ? port_mask_t'(1) << ent.parent[PortW-1:0] : '0;
  assign in_is_parent = 32'(in_i) == 32'(ent.parent);
  // The entry agrees with the tree the MFT holds (section 5, "consistent").
  assign consistent = in_range && valid_q[idx] && mft_valid_i &&
                      (ent.root ? mft_mask_i == children :
                                  parent_ok && (children & par_bit) == '0 &&
                                  mft_mask_i == (children | par_bit));
  assign is_arrive = hdr_i.pkt_type == PktCombArrive;
  assign e_cur = hdr_i.epoch == ent.epoch;
  assign e_prev = hdr_i.epoch == ent.epoch - epoch_t'(1);
  // A new arrival of the current epoch from a child: the entry takes it.
  assign fresh = consistent && is_arrive && (children & in_bit) != '0 && e_cur &&
                 !ent.arrived[in_i];
  assign partners = fresh ? part_i & children & ~ent.arrived & ~in_bit : '0;
  assign absorb_o = req_i ? partners : '0;
  assign a_new = ent.arrived | in_bit | partners;

  logic upd, rel;  // the entry changes; the packet emitted is a COMB_RELEASE
  epoch_t upd_epoch;
  port_mask_t upd_arrived;
  always_comb begin
    mask_o = '0;
    drop_o = 1'b0;
    rel = 1'b0;
    upd = 1'b0;
    upd_epoch = ent.epoch;
    upd_arrived = ent.arrived;
    if (!consistent) begin
      drop_o = 1'b1;
    end else if (is_arrive) begin
      if ((children & in_bit) == '0) begin
        drop_o = 1'b1;
      end else if (e_cur && !ent.arrived[in_i]) begin
        upd = 1'b1;
        upd_arrived = a_new;
        if (a_new == children) begin
          if (ent.root) begin
            mask_o = children;
            rel = 1'b1;
            upd_epoch = ent.epoch + epoch_t'(1);
            upd_arrived = '0;
          end else begin
            mask_o = par_bit;
          end
        end
      end else if (e_cur) begin
        // A re-send: climbs again while the entry waits for its release.
        if (ent.arrived == children && !ent.root) mask_o = par_bit;
      end else if (e_prev) begin
        // The child missed release e: re-send it down that port only.
        mask_o = in_bit;
        rel = 1'b1;
      end else begin
        drop_o = 1'b1;
      end
    end else begin
      if (ent.root || !in_is_parent) begin
        drop_o = 1'b1;
      end else if (e_cur && ent.arrived == children) begin
        upd = 1'b1;
        upd_epoch = ent.epoch + epoch_t'(1);
        upd_arrived = '0;
        mask_o = children;
        rel = 1'b1;
      end else if (e_prev) begin
        mask_o = children;
        rel = 1'b1;
      end else begin
        drop_o = 1'b1;
      end
    end
  end

  always_comb begin
    hdr_o = hdr_i;
    hdr_o.pkt_type = rel ? PktCombRelease : PktCombArrive;
    hdr_o.src_lid = '0;  // made by a switch
  end

  // ---------------------------------------------------------------------------
  // Registers: the packet's update first, a table write to the same entry
  // after it (the later write wins)
  // ---------------------------------------------------------------------------
  always_ff @(posedge clk_i) begin
    if (req_i && upd) begin
      ent_q[idx].epoch <= upd_epoch;
      ent_q[idx].arrived <= upd_arrived;
    end
    if (w_children) begin
      children_q[widx] <= wdata_i[NumPorts-1:0];
      ent_q[widx].arrived <= '0;
    end
    if (w_ctrl) begin
      ent_q[widx] <= '{root: wctrl.root, parent: wctrl.parent, epoch: wctrl.epoch, arrived: '0};
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) valid_q <= '0;
    else if (w_ctrl) valid_q[widx] <= wctrl.valid;
  end

  // ---------------------------------------------------------------------------
  // Assertions (docs/group-barrier.md, section 7)
  // ---------------------------------------------------------------------------
  // verilog_format: off
  // A COMB_RELEASE made from an arrival of the current epoch: only by a root
  // entry whose arrivals (this one and its partners included) equal its
  // children.
  `SF_ASSERT_IMM(a_cb_release_made_by_full_root,
                 !(req_i && is_arrive && rel && e_cur) || (ent.root && a_new == children))
  // Any other release answering an arrival re-sends the previous epoch on the
  // arrival's port only.
  `SF_ASSERT_IMM(a_cb_rerelease_prev_epoch_one_port,
                 !(req_i && is_arrive && rel && !e_cur) || (e_prev && mask_o == in_bit))
  // A COMB_RELEASE is forwarded only by a non-root, from its parent, with all
  // its children in (this epoch) or for the previous epoch.
  `SF_ASSERT_IMM(a_cb_release_fwd_from_parent,
                 !(req_i && !is_arrive && mask_o != '0) ||
                 (!ent.root && in_is_parent && ((e_cur && ent.arrived == children) || e_prev)))
  // A COMB_ARRIVE leaves only towards the parent of a non-root, all children
  // in (those already arrived, the packet and its partners).
  `SF_ASSERT_IMM(a_cb_arrive_up_when_full,
                 !(req_i && !rel && mask_o != '0) ||
                 (!ent.root && mask_o == par_bit && upd_arrived == children))
  // The arrivals are children: the entry read and the value written (the
  // partners' ports included).
  `SF_ASSERT_IMM(a_cb_arrived_in_children,
                 !(req_i && consistent) ||
                 ((ent.arrived & ~children) == '0 && (upd_arrived & ~children) == '0))
  // No copy of a COMB packet goes to a port outside the MFT mask.
  `SF_ASSERT_IMM(a_cb_copies_in_mft, !req_i || (mask_o & ~mft_mask_i) == '0)
  `SF_ASSERT_IMM(a_cb_drop_no_copy,
                 !(req_i && drop_o) || (mask_o == '0 && !upd && absorb_o == '0))
  // A partner is absorbed only with a COMB_ARRIVE of its MLID and epoch (the
  // current one) that the entry takes now, only from a child not yet
  // arrived, never from the packet's own input.
  `SF_ASSERT_IMM(a_cb_partner_match,
                 absorb_o == '0 ||
                 (req_i && is_arrive && consistent && e_cur && upd && (absorb_o & ~part_i) == '0 &&
                  (absorb_o & ~children) == '0 && (absorb_o & ent.arrived) == '0 &&
                  !absorb_o[in_i]))
  `SF_ASSERT_IMM(a_cb_comb_only, !req_i || hdr_i.pkt_type inside {PktCombArrive, PktCombRelease})
  // verilog_format: on

  logic unused_combine;
  assign unused_combine = ^{wctrl.rsvd, wdata_i, index_i};

endmodule
