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
// Ring mode (section 9; control word RING = 1). Per entry and phase the
// ring tables (TABLE 4: geometry, 5: EXPECT) and the state heard[parity]
// [phase], sent, owe (with the owed epoch), query, and per entry the ask
// level, beside A and E. A packet's first take applies its effect (section
// 9.3, re-asks included) and emits its own copy (a forwarded COMB_SHARE, a
// re-sent COMB_RELEASE) or, without one, the entry's first pending emission
// (section 9.4). When emissions are still pending after that, hold_o keeps
// the packet at the head of its input (switch_ingress remembers it); each
// later take of it (retake_i) ignores the packet and emits the next pending
// emission; hold_o low pops it. Pending emissions are a function of the
// entry alone, computed by a fixed loop over the COMB_PHASES phases of the
// entry read (no scan over entries), twice per take: for this take's
// emission and, after it, for hold_o.
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
  output tbl_data_t  rdata_o,      // entry index_i of TABLE 2 .. 5 now
  // The MFT entry of the packet's MLID (switch_tables, combinational)
  output tbl_index_t mft_idx_o,
  input  logic       mft_valid_i,
  input  port_mask_t mft_mask_i,
  // The COMB packet the enqueue engine takes now, from input in_i; retake_i:
  // the packet is held (a ring-mode take already applied it)
  input  logic       req_i,
  input  port_t      in_i,
  input  pkt_hdr_t   hdr_i,
  input  logic       retake_i,
  // Inputs whose pending head is a one-flit COMB_ARRIVE with hdr_i's dst_lid
  // and epoch, not held (in_i's own bit ignored), and those of them absorbed now
  input  port_mask_t part_i,
  output port_mask_t absorb_o,
  // Its copies (none: absorbed or dropped), DROP_NO_ROUTE, the emitted
  // header, and whether the packet stays at its input's head (ring mode)
  output port_mask_t mask_o,
  output logic       drop_o,
  output pkt_hdr_t   hdr_o,
  output logic       hold_o
);

  `SF_STATIC_ASSERT(gen_mft_check, MftEntries >= 1 && MftEntries <= 16384)
  `SF_STATIC_ASSERT(gen_ports_check, NumPorts >= 1 && NumPorts <= MaxPorts)
  `SF_STATIC_ASSERT(gen_ctrl_layout, $bits(cb_ctrl_data_t) == $bits(tbl_data_t))
  `SF_STATIC_ASSERT(gen_ring_layout, $bits(cb_ring_data_t) == $bits(tbl_data_t) && $bits
                    (ring_set_t) <= $bits(tbl_data_t))
  `SF_STATIC_ASSERT(gen_epoch_width, $bits(epoch_t) == PKT_HDR_EPOCH_W)
  `SF_STATIC_ASSERT(gen_phases_fit,
                    COMB_PHASES >= 1 && COMB_PHASES <= (1 << CbTblPhaseW) && COMB_RING_MAX >= 2)

  localparam int unsigned MftW = (MftEntries > 1) ? $clog2(MftEntries) : 1;
  typedef logic [MftW-1:0] idx_t;
  localparam int unsigned NumPh = COMB_PHASES;
  localparam int unsigned PhW = (NumPh > 1) ? $clog2(NumPh) : 1;
  typedef logic [PhW-1:0] ph_t;
  typedef logic [NumPh-1:0] ph_mask_t;
  // heard[b][d]: positions heard in phase d for the epoch of parity b.
  typedef logic [1:0][NumPh-1:0][COMB_RING_MAX-1:0] heard_t;
  typedef logic [PKT_HDR_ASK_W-1:0] ask_t;
  typedef epoch_t [NumPh-1:0] owe_ep_t;  // per phase: the epoch an answer is owed for

  // The PHASES values an entry may hold: 1 .. COMB_PHASES.
  function automatic logic [(1<<CbPhasesW)-1:0] phases_ok_tab();
    logic [(1<<CbPhasesW)-1:0] r;
    for (int p = 0; p < (1 << CbPhasesW); p++) r[p] = p >= 1 && p <= NumPh;
    return r;
  endfunction
  localparam logic [(1<<CbPhasesW)-1:0] PhasesOk = phases_ok_tab();

  // The control word's fields and the state the unit advances.
  typedef struct packed {
    logic       root;
    port_num_t  parent;
    epoch_t     epoch;
    port_mask_t arrived;
  } cb_e_t;

  // What a ring-mode take reads and writes of its entry.
  typedef struct packed {
    epoch_t     epoch;
    port_mask_t arrived;
    heard_t     heard;
    ph_mask_t   sent;
    ph_mask_t   owe;
    owe_ep_t    owe_ep;
    ph_mask_t   query;
    ask_t       level;
  } rs_t;

  // A pending emission (section 9.4): own share, query, answer, completion.
  typedef enum logic [2:0] {
    EmNone,
    EmShare,
    EmQuery,
    EmAnswer,
    EmRelease
  } em_e;
  typedef struct packed {
    em_e kind;
    ph_t d;
  } em_t;

  // ---------------------------------------------------------------------------
  // Storage (no reset but the VALID bits: an entry is read only once it is valid)
  // ---------------------------------------------------------------------------
  cb_e_t ent_q [MftEntries];
  port_mask_t children_q [MftEntries];
  logic [MftEntries-1:0] valid_q;
  logic ring_q [MftEntries];
  cb_phases_t phases_q [MftEntries];
  cb_ring_data_t geo_q [MftEntries][NumPh];
  ring_set_t expect_q [MftEntries][NumPh];
  logic [MftEntries-1:0][NumPh-1:0] geo_valid_q;
  heard_t heard_q [MftEntries];
  ph_mask_t sent_q [MftEntries];
  ph_mask_t owe_q [MftEntries];
  owe_ep_t owe_ep_q [MftEntries];
  ph_mask_t query_q [MftEntries];
  ask_t level_q [MftEntries];

  logic w_in_range, w_children, w_ctrl;
  idx_t widx;
  cb_ctrl_data_t wctrl;
  assign w_in_range = 32'(index_i) < MftEntries;
  assign widx = index_i[MftW-1:0];
  assign wctrl = cb_ctrl_data_t'(wdata_i);
  assign w_children = write_i && w_in_range && table_i == TblCbChildren;
  assign w_ctrl = write_i && w_in_range && table_i == TblCbCtrl;

  // The ring tables: entry index_i / 4, phase index_i mod 4 (phase 3 and
  // above: no word, a write is ignored and a read gives 0).
  logic r_in_range, r_phase_ok, w_geo, w_expect;
  idx_t ridx;
  ph_t rph;
  cb_ring_data_t wgeo;
  tbl_index_t rent;
  assign rent = index_i >> CbTblPhaseW;
  assign r_in_range = 32'(rent) < MftEntries;
  assign r_phase_ok = 32'(index_i[CbTblPhaseW-1:0]) < NumPh;
  assign ridx = rent[MftW-1:0];
  assign rph = ph_t'(index_i[CbTblPhaseW-1:0]);
  assign wgeo = cb_ring_data_t'(wdata_i);
  assign w_geo = write_i && r_in_range && r_phase_ok && table_i == TblCbRing;
  assign w_expect = write_i && r_in_range && r_phase_ok && table_i == TblCbExpect;

  cb_ctrl_data_t rd_ctrl;
  cb_ring_data_t rd_geo;
  assign rd_ctrl = '{
          valid: 1'b1,
          root: ent_q[widx].root,
          ring: ring_q[widx],
          rsvd: '0,
          phases: phases_q[widx],
          epoch: ent_q[widx].epoch,
          parent: ent_q[widx].parent
      };
  always_comb begin
    rd_geo = geo_q[ridx][rph];
    rd_geo.rsvd = '0;
  end
  always_comb begin
    rdata_o = '0;
    if (w_in_range && table_i == TblCbChildren) begin
      rdata_o = tbl_data_t'(children_q[widx]);
    end else if (w_in_range && table_i == TblCbCtrl && valid_q[widx]) begin
      rdata_o = tbl_data_t'(rd_ctrl);
    end else if (r_in_range && r_phase_ok && table_i == TblCbRing && geo_valid_q[ridx][rph]) begin
      rdata_o = tbl_data_t'(rd_geo);
    end else if (r_in_range && r_phase_ok && table_i == TblCbExpect) begin
      rdata_o = tbl_data_t'(expect_q[ridx][rph]);
    end
  end

  // ---------------------------------------------------------------------------
  // Decision: the entry
  // ---------------------------------------------------------------------------
  lid_t mlid_off;  // the entry: MLID - MLID_BASE
  idx_t idx;
  logic in_range;
  cb_e_t ent;
  port_mask_t children, in_bit, par_bit, a_new;
  port_mask_t partners;  // absorbed with the packet if it is taken now
  logic parent_ok, consistent, is_arrive, is_share, e_cur, e_prev, in_is_parent, fresh;
  logic ring;  // the entry is valid and in ring mode
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
  assign ring = in_range && valid_q[idx] && ring_q[idx];
  // The entry agrees with the tree the MFT holds (section 5, "consistent").
  assign consistent = in_range && valid_q[idx] && !ring_q[idx] && mft_valid_i &&
                      (ent.root ? mft_mask_i == children :
                                  parent_ok && (children & par_bit) == '0 &&
                                  mft_mask_i == (children | par_bit));
  assign is_arrive = hdr_i.pkt_type == PktCombArrive;
  assign is_share = hdr_i.pkt_type == PktCombShare;
  assign e_cur = hdr_i.epoch == ent.epoch;
  assign e_prev = hdr_i.epoch == ent.epoch - epoch_t'(1);

  // Ring mode: the phases valid here (below PHASES, geometry VALID), ORIGIN,
  // EXPECT (0 where the phase is not valid), each phase's ports, reaches and
  // its geometry's consistency (section 9.2).
  ph_mask_t vph, org, geo_ok;
  ring_set_t [NumPh-1:0] expv;
  port_mask_t [NumPh-1:0] plus_bit, minus_bit, share_mask;
  ring_len_t [NumPh-1:0] reach_p, reach_m;
  logic waits, r_consistent;
  for (genvar d = 0; d < NumPh; d++) begin : gen_phase
    cb_ring_data_t g;
    ring_set_t len_mask;
    logic ports_ok;
    logic unused_g;
    assign g = geo_q[idx][d];
    assign unused_g = ^{g.valid, g.rsvd};
    assign vph[d] = 32'(d) < 32'(phases_q[idx]) && geo_valid_q[idx][d];
    assign org[d] = vph[d] && g.origin;
    assign expv[d] = vph[d] ? expect_q[idx][d] : '0;
    assign ports_ok = 32'(g.plus) < NumPorts && 32'(g.minus) < NumPorts;
    assign plus_bit[d] = ports_ok ? port_mask_t'(1) << g.plus[PortW-1:0] : '0;
    assign minus_bit[d] = ports_ok ? port_mask_t'(1) << g.minus[PortW-1:0] : '0;
    assign reach_p[d] = g.len >> 1;
    assign reach_m[d] = g.len - ring_len_t'(1) - (g.len >> 1);
    // The own share goes + always (LEN >= 2) and - when R- > 0.
    assign share_mask[d] = plus_bit[d] | (reach_m[d] != '0 ? minus_bit[d] : '0);
    assign len_mask = (32'(g.len) >= COMB_RING_MAX) ? '1 :
                      (ring_set_t'(1) << g.len) - ring_set_t'(1);
    assign geo_ok[d] = !vph[d] ||
                       (ports_ok && ((plus_bit[d] | minus_bit[d]) & children) == '0 &&
                        32'(g.len) >= 2 && 32'(g.len) <= COMB_RING_MAX &&
                        ring_len_t'(g.pos) < g.len &&
                        (expect_q[idx][d] & ~len_mask) == '0 && !expect_q[idx][d][g.pos]);
  end
  assign waits = children != '0 || expv != '0;
  // Section 9.2, "consistent" (a relay needs no MFT entry).
  assign r_consistent = ring && PhasesOk[phases_q[idx]] &&
                        (children == '0 || (mft_valid_i && (children & ~mft_mask_i) == '0)) &&
                        &geo_ok;

  // Epoch e is behind cur: e != cur and (cur - e) mod 2^16 < 2^15 (an epoch
  // cur's entry completed, not E + 1).
  function automatic logic behind(epoch_t e, epoch_t cur);
    epoch_t lag;
    lag = cur - e;
    return lag != '0 && !lag[$bits(epoch_t)-1];
  endfunction

  // The done chain of a state (A, and heard of the parity of its E):
  // dprev[d] = done_(d-1); and whether it is complete (with sent).
  typedef logic [NumPh-1:0][COMB_RING_MAX-1:0] heard_e_t;
  function automatic ph_mask_t done_prev(port_mask_t arrived, heard_e_t heard);
    logic dn;
    ph_mask_t r;
    dn = arrived == children;
    for (int d = 0; d < NumPh; d++) begin
      r[d] = dn;
      dn = dn && (expv[d] & ~heard[d]) == '0;
    end
    return r;
  endfunction
  function automatic logic complete_of(port_mask_t arrived, heard_e_t heard, ph_mask_t sent);
    logic dn;
    dn = arrived == children;
    for (int d = 0; d < NumPh; d++) dn = dn && (expv[d] & ~heard[d]) == '0;
    return dn && (org & ~sent) == '0 && waits;
  endfunction
  // The first pending emission of a state (section 9.4's order).
  function automatic em_t pending_of(port_mask_t arrived, heard_e_t heard, ph_mask_t sent,
                                     ph_mask_t owe, ph_mask_t query);
    em_t e;
    ph_mask_t sh;
    sh = org & done_prev(arrived, heard) & ~sent;
    e = '{kind: EmNone, d: '0};
    for (int d = NumPh - 1; d >= 0; d--) begin
      if (owe[d]) e = '{kind: EmAnswer, d: ph_t'(d)};
    end
    for (int d = NumPh - 1; d >= 0; d--) begin
      if (query[d]) e = '{kind: EmQuery, d: ph_t'(d)};
    end
    for (int d = NumPh - 1; d >= 0; d--) begin
      if (sh[d]) e = '{kind: EmShare, d: ph_t'(d)};
    end
    if (e.kind == EmNone && complete_of(arrived, heard, sent)) begin
      e = '{kind: EmRelease, d: '0};
    end
    return e;
  endfunction
  // re-ask(k) (section 9.3): the own shares of the phases reached go out
  // again, the short phases this switch has no share in are queried, and
  // what it sends carries ask k.
  function automatic rs_t reask(rs_t s, ask_t k);
    rs_t r;
    ph_mask_t dp, short_ph;
    heard_e_t heard;
    r = s;
    heard = s.heard[s.epoch[0]];
    dp = done_prev(s.arrived, heard);
    for (int d = 0; d < NumPh; d++) short_ph[d] = (expv[d] & ~heard[d]) != '0;
    r.sent = s.sent & ~(org & dp);
    r.query = s.query | (vph & ~org & short_ph);
    r.level = k;
    return r;
  endfunction
  // The state after an emission.
  function automatic rs_t apply_em(rs_t s, em_t e);
    rs_t r;
    r = s;
    unique case (e.kind)
      EmShare: r.sent[e.d] = 1'b1;
      EmQuery: r.query[e.d] = 1'b0;
      EmAnswer: r.owe[e.d] = 1'b0;
      EmRelease: begin
        r.epoch = s.epoch + epoch_t'(1);
        r.arrived = '0;
        r.sent = '0;
        r.owe = '0;
        r.query = '0;
        r.level = '0;
        r.heard[s.epoch[0]] = '0;
      end
      default: ;
    endcase
    return r;
  endfunction

  // A new arrival of the current epoch from a child: the entry takes it
  // (tree or ring mode; a retake looks at no packet).
  assign fresh = (consistent || (r_consistent && !retake_i && hdr_i.len_flits == len_t'(1))) &&
                 is_arrive && (children & in_bit) != '0 && e_cur && !ent.arrived[in_i];
  assign partners = fresh ? part_i & children & ~ent.arrived & ~in_bit : '0;
  assign absorb_o = req_i ? partners : '0;
  assign a_new = ent.arrived | in_bit | partners;

  // ---------------------------------------------------------------------------
  // Decision: tree mode (section 5)
  // ---------------------------------------------------------------------------
  logic upd, rel;  // the entry changes; the packet emitted is a COMB_RELEASE
  epoch_t upd_epoch;
  port_mask_t upd_arrived, t_mask;
  logic t_drop;
  always_comb begin
    t_mask = '0;
    t_drop = 1'b0;
    rel = 1'b0;
    upd = 1'b0;
    upd_epoch = ent.epoch;
    upd_arrived = ent.arrived;
    if (!consistent || is_share) begin
      t_drop = 1'b1;
    end else if (is_arrive) begin
      if ((children & in_bit) == '0) begin
        t_drop = 1'b1;
      end else if (e_cur && !ent.arrived[in_i]) begin
        upd = 1'b1;
        upd_arrived = a_new;
        if (a_new == children) begin
          if (ent.root) begin
            t_mask = children;
            rel = 1'b1;
            upd_epoch = ent.epoch + epoch_t'(1);
            upd_arrived = '0;
          end else begin
            t_mask = par_bit;
          end
        end
      end else if (e_cur) begin
        // A re-send: climbs again while the entry waits for its release.
        if (ent.arrived == children && !ent.root) t_mask = par_bit;
      end else if (e_prev) begin
        // The child missed release e: re-send it down that port only.
        t_mask = in_bit;
        rel = 1'b1;
      end else begin
        t_drop = 1'b1;
      end
    end else begin
      if (ent.root || !in_is_parent) begin
        t_drop = 1'b1;
      end else if (e_cur && ent.arrived == children) begin
        upd = 1'b1;
        upd_epoch = ent.epoch + epoch_t'(1);
        upd_arrived = '0;
        t_mask = children;
        rel = 1'b1;
      end else if (e_prev) begin
        t_mask = children;
        rel = 1'b1;
      end else begin
        t_drop = 1'b1;
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Decision: ring mode (section 9.3 and 9.4)
  // ---------------------------------------------------------------------------
  rs_t r_s0, r_s1, r_s2;  // the entry read, after the packet, after the emission
  em_t r_em, r_next;  // this take's pending emission (if it has no own copy), the next one
  logic r_drop, r_own, r_own_rel;  // refused; the packet has a copy of its own (a re-sent release)
  logic r_reask;  // the packet re-asks, with level r_reask_k
  ask_t r_reask_k;
  port_mask_t r_own_mask;
  // The COMB_SHARE's phase, geometry, direction and distance.
  ph_t sd;
  cb_ring_data_t sg;
  logic s_ph_ok, s_from_minus, s_from_plus, s_org_ok, s_dir_p;
  ring_len_t s_o, s_k, s_reach;
  logic s_fwd;
  assign s_ph_ok = 32'(hdr_i.round) < 32'(phases_q[idx]) && vph[ph_t'(hdr_i.round)];
  assign sd = ph_t'(hdr_i.round);
  assign sg = geo_q[idx][sd];
  assign s_from_minus = 32'(in_i) == 32'(sg.minus);
  assign s_from_plus = 32'(in_i) == 32'(sg.plus);
  assign s_org_ok = 32'(hdr_i.member) < 32'(sg.len) && 32'(hdr_i.member) != 32'(sg.pos);
  assign s_o = ring_len_t'(hdr_i.member);
  assign s_dir_p = s_from_minus;  // checked first: PLUS = MINUS when LEN = 2
  assign s_k = s_dir_p ? ((ring_len_t'(sg.pos) >= s_o) ? ring_len_t'(sg.pos) - s_o :
                                                          ring_len_t'(sg.pos) + sg.len - s_o) :
                         ((s_o >= ring_len_t'(sg.pos)) ? s_o - ring_len_t'(sg.pos) :
                                                          s_o + sg.len - ring_len_t'(sg.pos));
  assign s_reach = s_dir_p ? reach_p[sd] : reach_m[sd];
  assign s_fwd = s_k < s_reach;  // k + 1 <= reach
  ring_set_t s_bit;  // the origin's bit, if EXPECT names it
  assign s_bit = expv[sd] & (ring_set_t'(1) << s_o);
  // The share's epoch: E, E + 1, or behind E.
  logic s_e_next, s_behind;
  assign s_e_next = hdr_i.epoch == ent.epoch + epoch_t'(1);
  assign s_behind = behind(hdr_i.epoch, ent.epoch);

  assign r_s0 = '{
          epoch: ent.epoch,
          arrived: ent.arrived,
          heard: heard_q[idx],
          sent: sent_q[idx],
          owe: owe_q[idx],
          owe_ep: owe_ep_q[idx],
          query: query_q[idx],
          level: level_q[idx]
      };

  always_comb begin
    r_drop = 1'b0;
    r_own = 1'b0;
    r_own_rel = 1'b0;
    r_own_mask = '0;
    r_reask = 1'b0;
    r_reask_k = '0;
    r_s1 = r_s0;
    if (!r_consistent) begin
      r_drop = !retake_i;
    end else if (retake_i) begin
      // The packet was applied by its first take.
    end else if (hdr_i.len_flits != len_t'(1)) begin
      r_drop = 1'b1;
    end else if (is_arrive) begin
      if ((children & in_bit) == '0) begin
        r_drop = 1'b1;
      end else if (e_cur && !ent.arrived[in_i]) begin
        r_s1.arrived = a_new;
      end else if (e_cur) begin
        // A member re-sent: something was lost.
        r_reask = 1'b1;
        r_reask_k = ask_t'(phases_q[idx]);
      end else if (e_prev) begin
        // The member missed release e: re-send it on its port only.
        r_own = 1'b1;
        r_own_rel = 1'b1;
        r_own_mask = in_bit;
      end else begin
        r_drop = 1'b1;
      end
    end else if (is_share) begin
      if (!s_ph_ok || !(s_from_minus || s_from_plus) || !s_org_ok || s_k > s_reach) begin
        r_drop = 1'b1;
      end else begin
        if (s_fwd) begin
          r_own = 1'b1;
          r_own_mask = s_dir_p ? plus_bit[sd] : minus_bit[sd];
        end
        if (e_cur) begin
          r_s1.heard[ent.epoch[0]][sd] = r_s0.heard[ent.epoch[0]][sd] | s_bit;
        end else if (s_e_next) begin
          r_s1.heard[!ent.epoch[0]][sd] = r_s0.heard[!ent.epoch[0]][sd] | s_bit;
        end else if (s_behind && !hdr_i.answer && hdr_i.ask != '0 && org[sd]) begin
          // Its origin asks at an epoch this switch completed.
          r_s1.owe[sd] = 1'b1;
          r_s1.owe_ep[sd] = hdr_i.epoch;
        end
        // A switch that waits on this one asks: ask in turn, one level less.
        if ((e_cur || s_e_next) && hdr_i.ask >= ask_t'(2)) begin
          r_reask = 1'b1;
          r_reask_k = hdr_i.ask - ask_t'(1);
        end
      end
    end else begin
      r_drop = 1'b1;  // a COMB_RELEASE: in ring mode releases only go to members
    end
    // After the packet's own effect (a share's heard bit counts).
    if (r_reask) r_s1 = reask(r_s1, r_reask_k);
  end

  assign r_em = (r_drop || r_own || !r_consistent) ? '{kind: EmNone, d: '0} :
                pending_of(r_s1.arrived, r_s1.heard[r_s1.epoch[0]], r_s1.sent, r_s1.owe,
                           r_s1.query);
  assign r_s2 = apply_em(r_s1, r_em);
  assign r_next = (r_drop || !r_consistent) ? '{kind: EmNone, d: '0} :
                  pending_of(r_s2.arrived, r_s2.heard[r_s2.epoch[0]], r_s2.sent, r_s2.owe,
                             r_s2.query);

  // The ring-mode emission: its copies and header.
  port_mask_t r_mask;
  pkt_hdr_t r_hdr;
  always_comb begin
    r_hdr = hdr_i;
    r_hdr.src_lid = '0;  // made by a switch
    r_mask = '0;
    if (r_own) begin
      r_mask = r_own_mask;
      if (r_own_rel) begin
        r_hdr.pkt_type = PktCombRelease;
        r_hdr.round = '0;
        r_hdr.member = '0;
        r_hdr.answer = 1'b0;
        r_hdr.ask = '0;
      end
    end else if (r_em.kind == EmRelease) begin
      r_mask = children;
      r_hdr.pkt_type = PktCombRelease;
      r_hdr.epoch = r_s1.epoch;
      r_hdr.round = '0;
      r_hdr.member = '0;
      r_hdr.answer = 1'b0;
      r_hdr.ask = '0;
    end else if (r_em.kind != EmNone) begin
      // An own share, a query (the same packet from a phase without ORIGIN)
      // or an answer (for the epoch owed, never asking).
      r_mask = share_mask[r_em.d];
      r_hdr.pkt_type = PktCombShare;
      r_hdr.epoch = (r_em.kind == EmAnswer) ? r_s1.owe_ep[r_em.d] : r_s1.epoch;
      r_hdr.round = $bits(r_hdr.round)'(r_em.d);
      r_hdr.member = $bits(r_hdr.member)'(geo_q[idx][r_em.d].pos);
      r_hdr.answer = r_em.kind == EmAnswer;
      r_hdr.ask = (r_em.kind == EmAnswer) ? '0 : r_s1.level;
    end
  end

  // ---------------------------------------------------------------------------
  // The unit's answer: ring mode for a ring entry (or a retake), else tree mode
  // ---------------------------------------------------------------------------
  logic use_ring;
  assign use_ring = ring || retake_i;
  always_comb begin
    if (use_ring) begin
      mask_o = r_mask;
      drop_o = r_drop;
      hdr_o = r_hdr;
      hold_o = r_next.kind != EmNone;
    end else begin
      mask_o = t_mask;
      drop_o = t_drop;
      hdr_o = hdr_i;
      hdr_o.pkt_type = rel ? PktCombRelease : PktCombArrive;
      hdr_o.src_lid = '0;  // made by a switch
      hold_o = 1'b0;
    end
  end

  // ---------------------------------------------------------------------------
  // Registers: the packet's update first, a table write to the same entry
  // after it (the later write wins)
  // ---------------------------------------------------------------------------
  logic r_upd;
  assign r_upd = req_i && use_ring && r_consistent && !r_drop;
  always_ff @(posedge clk_i) begin
    if (req_i && !use_ring && upd) begin
      ent_q[idx].epoch <= upd_epoch;
      ent_q[idx].arrived <= upd_arrived;
    end
    if (r_upd) begin
      ent_q[idx].epoch <= r_s2.epoch;
      ent_q[idx].arrived <= r_s2.arrived;
      heard_q[idx] <= r_s2.heard;
      sent_q[idx] <= r_s2.sent;
      owe_q[idx] <= r_s2.owe;
      owe_ep_q[idx] <= r_s2.owe_ep;
      query_q[idx] <= r_s2.query;
      level_q[idx] <= r_s2.level;
    end
    if (w_children) begin
      children_q[widx] <= wdata_i[NumPorts-1:0];
      ent_q[widx].arrived <= '0;
    end
    if (w_ctrl) begin
      ent_q[widx] <= '{root: wctrl.root, parent: wctrl.parent, epoch: wctrl.epoch, arrived: '0};
      ring_q[widx] <= wctrl.ring;
      phases_q[widx] <= wctrl.phases;
      heard_q[widx] <= '0;
      sent_q[widx] <= '0;
      owe_q[widx] <= '0;
      query_q[widx] <= '0;
      level_q[widx] <= '0;
    end
    if (w_geo) geo_q[ridx][rph] <= wgeo;
    if (w_expect) expect_q[ridx][rph] <= ring_set_t'(wdata_i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      geo_valid_q <= '0;
    end else begin
      if (w_ctrl) valid_q[widx] <= wctrl.valid;
      if (w_geo) geo_valid_q[ridx][rph] <= wgeo.valid;
    end
  end

  // ---------------------------------------------------------------------------
  // Assertions (docs/group-barrier.md, sections 7 and 9.6)
  // ---------------------------------------------------------------------------
  pkt_hdr_t hdr_fwd;  // a forwarded share: the packet but src_lid
  ph_mask_t r_dp1;
  always_comb begin
    hdr_fwd = hdr_i;
    hdr_fwd.src_lid = '0;
  end
  assign r_dp1 = done_prev(r_s1.arrived, r_s1.heard[r_s1.epoch[0]]);
  // verilog_format: off
  // A COMB_RELEASE made from an arrival of the current epoch: only by a root
  // entry whose arrivals (this one and its partners included) equal its
  // children.
  `SF_ASSERT_IMM(a_cb_release_made_by_full_root,
                 !(req_i && !use_ring && is_arrive && rel && e_cur) ||
                 (ent.root && a_new == children))
  // Any other release answering an arrival re-sends the previous epoch on the
  // arrival's port only.
  `SF_ASSERT_IMM(a_cb_rerelease_prev_epoch_one_port,
                 !(req_i && !use_ring && is_arrive && rel && !e_cur) ||
                 (e_prev && mask_o == in_bit))
  // A COMB_RELEASE is forwarded only by a non-root, from its parent, with all
  // its children in (this epoch) or for the previous epoch.
  `SF_ASSERT_IMM(a_cb_release_fwd_from_parent,
                 !(req_i && !use_ring && !is_arrive && mask_o != '0) ||
                 (!ent.root && in_is_parent && ((e_cur && ent.arrived == children) || e_prev)))
  // A COMB_ARRIVE leaves only towards the parent of a non-root, all children
  // in (those already arrived, the packet and its partners).
  `SF_ASSERT_IMM(a_cb_arrive_up_when_full,
                 !(req_i && !use_ring && !rel && mask_o != '0) ||
                 (!ent.root && mask_o == par_bit && upd_arrived == children))
  // The arrivals are children: the entry read and the value written (the
  // partners' ports included).
  `SF_ASSERT_IMM(a_cb_arrived_in_children,
                 !(req_i && consistent) ||
                 ((ent.arrived & ~children) == '0 && (upd_arrived & ~children) == '0))
  // No copy of a tree-mode COMB packet goes to a port outside the MFT mask.
  `SF_ASSERT_IMM(a_cb_copies_in_mft, !(req_i && !use_ring) || (mask_o & ~mft_mask_i) == '0)
  `SF_ASSERT_IMM(a_cb_drop_no_copy,
                 !(req_i && drop_o) || (mask_o == '0 && !upd && !r_upd && absorb_o == '0 &&
                                        !hold_o))
  // A partner is absorbed only with a COMB_ARRIVE of its MLID and epoch (the
  // current one) that the entry takes now, only from a child not yet
  // arrived, never from the packet's own input.
  `SF_ASSERT_IMM(a_cb_partner_match,
                 absorb_o == '0 ||
                 (req_i && is_arrive && !retake_i && (consistent || r_consistent) && e_cur &&
                  (upd || r_upd) && (absorb_o & ~part_i) == '0 &&
                  (absorb_o & ~children) == '0 && (absorb_o & ent.arrived) == '0 &&
                  !absorb_o[in_i]))
  `SF_ASSERT_IMM(a_cb_comb_only,
                 !req_i || hdr_i.pkt_type inside {PktCombArrive, PktCombRelease, PktCombShare})
  // Only ring mode holds a packet.
  `SF_ASSERT_IMM(a_cb_hold_ring_only, !(req_i && hold_o) || (use_ring && r_consistent))

  // Ring mode (section 9.6). A COMB_RELEASE of the current epoch is made
  // only by a complete entry: A = children, every EXPECT_d heard, every own
  // share sent (and the entry waits for something).
  `SF_ASSERT_IMM(a_ring_release_complete,
                 !(req_i && use_ring && r_em.kind == EmRelease) ||
                 (r_s1.arrived == children &&
                  complete_of(r_s1.arrived, r_s1.heard[r_s1.epoch[0]], r_s1.sent) &&
                  mask_o == children &&
                  hdr_o.epoch == r_s1.epoch && (org & ~r_s1.sent) == '0))
  // Any other ring-mode release is for E - 1, answering a member's arrival
  // of E - 1 on that member's port only.
  `SF_ASSERT_IMM(a_ring_rerelease_prev_one_port,
                 !(req_i && use_ring && r_own_rel) ||
                 (is_arrive && !retake_i && e_prev && mask_o == in_bit && children[in_i] &&
                  hdr_o.epoch == ent.epoch - epoch_t'(1)))
  `SF_ASSERT_IMM(a_ring_release_kinds,
                 !(req_i && use_ring && mask_o != '0 && hdr_o.pkt_type == PktCombRelease) ||
                 (r_own_rel || r_em.kind == EmRelease))
  // A share is forwarded only within its reach (k + 1 <= R of its
  // direction), only to the port of its direction, unchanged but src_lid.
  `SF_ASSERT_IMM(a_ring_fwd_within_reach,
                 !(req_i && use_ring && r_own && !r_own_rel) ||
                 (is_share && !retake_i && s_k >= ring_len_t'(1) &&
                  s_k + ring_len_t'(1) <= s_reach &&
                  (s_dir_p ? s_from_minus && mask_o == plus_bit[sd]
                           : s_from_plus && mask_o == minus_bit[sd]) &&
                  hdr_o == hdr_fwd))
  // An own share of phase d for E leaves only with done_(d-1), from a phase
  // this switch originates, and not twice for E; it carries the entry's level.
  `SF_ASSERT_IMM(a_ring_own_share_done,
                 !(req_i && use_ring && r_em.kind == EmShare) ||
                 (r_dp1[r_em.d] && org[r_em.d] && !r_s1.sent[r_em.d] &&
                  hdr_o.epoch == r_s1.epoch && !hdr_o.answer && hdr_o.ask == r_s1.level &&
                  32'(hdr_o.member) == 32'(geo_q[idx][r_em.d].pos)))
  // A query of phase d never comes from a phase with ORIGIN_d (nobody may
  // record it); it names E, answer 0, and asks (level >= 1).
  `SF_ASSERT_IMM(a_ring_query_no_origin,
                 !(req_i && use_ring && r_em.kind == EmQuery) ||
                 (vph[r_em.d] && !org[r_em.d] && r_s1.query[r_em.d] &&
                  hdr_o.epoch == r_s1.epoch && !hdr_o.answer && hdr_o.ask == r_s1.level &&
                  hdr_o.ask != '0 && 32'(hdr_o.member) == 32'(geo_q[idx][r_em.d].pos)))
  // An answer names an epoch behind E (one this entry completed), answer =
  // 1 and ask 0, for a phase it originates.
  `SF_ASSERT_IMM(a_ring_answer_behind,
                 !(req_i && use_ring && r_em.kind == EmAnswer) ||
                 (r_s1.owe[r_em.d] && org[r_em.d] && hdr_o.answer && hdr_o.ask == '0 &&
                  hdr_o.epoch == r_s1.owe_ep[r_em.d] && behind(hdr_o.epoch, r_s1.epoch)))
  // A retake looks at no packet: no drop, no partner, no copy of its own.
  `SF_ASSERT_IMM(a_ring_retake_no_packet,
                 !(req_i && retake_i) || (!drop_o && absorb_o == '0 && !r_own))
  // The ring state stays within its ring: heard only in EXPECT; owe only
  // where the phase originates, for an epoch behind E; a query only where
  // the phase is valid without ORIGIN, with a level to ask; the arrivals are
  // children.
  `SF_ASSERT_IMM_FORALL(a_ring_state_in_bounds, req_i && use_ring && r_consistent, d, NumPh, 1'b1,
                        (r_s2.heard[0][d] & ~expv[d]) == '0 &&
                        (r_s2.heard[1][d] & ~expv[d]) == '0 &&
                        (!r_s2.owe[d] || (org[d] && behind(r_s2.owe_ep[d], r_s2.epoch))) &&
                        (!r_s2.query[d] || (vph[d] && !org[d] && r_s2.level != '0)) &&
                        (r_s2.arrived & ~children) == '0)
  // verilog_format: on

  logic unused_combine;
  assign unused_combine = ^{wctrl.rsvd, wdata_i, index_i, sg.rsvd, sg.valid, sg.origin, r_dp1,
                            hdr_fwd, r_next.d};

endmodule
