// One input port of the switch (docs/switch-datapath.md, "Ingress" and the
// VOQ side of "Enqueue"): header checks, admission, the shared cell buffer
// with its packet slots, the virtual output queues VOQ[o][q] of this input,
// the per-arrival-priority occupancy for pfc_tx, and the read port the
// egress streams copies from.
//
// Storage. BufCells cells of one flit; a packet's cells are chained by
// cell_next. Free cells are the cells never used since reset (taken in index
// order) and a list of returned cells linked through the same cell_next: a
// packet that goes returns its whole chain to the list's tail in one cycle
// (a splice, whatever its length). A packet's slot is its
// first cell: every packet holds at least one cell, so slots never run out
// before cells and need no allocator of their own. A slot records the
// packet's length, arrival priority, lossy flag, cell count, last cell and a
// reference count of the copies not yet sent (set when the engine takes the
// packet, to the copies WRED kept). A
// copy waiting for output o is linked into VOQ[o][q] through
// copy_next[slot][o]; a packet is stored once whatever the number of copies.
//
// Every update touches the few entries an event names (indexed writes): no
// per-cycle scan of the cells or slots, so the model's cost does not grow
// with BufCells.
//
// Timing. The header is checked and admitted in the cycle it is taken
// (the lookup is combinational, from switch_tables); one flit is written per
// cycle; a complete packet goes into a small pending FIFO that the enqueue
// engine (switch_top) drains one packet per cycle switch-wide, all its
// copies in that cycle (one push per output). rx_ready_o is low only while
// that FIFO is full.
//
// Holds (ring mode of the combine unit, docs/group-barrier.md section 9.4).
// A take with hold_i leaves the packet at the head of the pending FIFO and
// marks it held (held_o): its next take is a retake. Its emission, if any,
// goes into a fresh cell of this buffer, a one-flit packet of its own
// (a slot with the held packet's arrival priority), which returns when its
// copies have left. That cell is taken from the free cells beside the
// flit rx writes in the same cycle (the free list gives up to two cells a
// cycle), and only from the cells the packet being received does not still
// need (cell_ok_o); a header admitted in that cycle sees the free cells
// after it. The take that pops a held packet writes its emission into the
// packet's own cell, as any COMB packet's.

`include "syncfab_assert.svh"
`include "switch_types.svh"

module switch_ingress
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned BufCells = 256,
  parameter int unsigned PendDepth = 4,
  localparam int unsigned RefW = $clog2(NumPorts + 1),
  localparam int unsigned PortW = `SF_SWITCH_PORT_W(NumPorts),
  localparam type port_t = logic [PortW-1:0],
  localparam type port_mask_t = logic [NumPorts-1:0],
  localparam type lk_rsp_t = `SF_SWITCH_LK_RSP_T,
  localparam int unsigned CellW = `SF_SWITCH_CELL_W(BufCells),
  localparam int unsigned CntW = `SF_SWITCH_CNT_W(BufCells),
  localparam type cell_t = logic [CellW-1:0],
  localparam type cnt_t = logic [CntW-1:0],
  localparam type pend_t = `SF_SWITCH_PEND_T,
  localparam type pop_rsp_t = `SF_SWITCH_POP_RSP_T,
  localparam type rd_req_t = `SF_SWITCH_RD_REQ_T,
  localparam type rd_rsp_t = `SF_SWITCH_RD_RSP_T
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,
  // Configuration (CSRs)
  input  logic                                  enable_i,
  input  prio_mask_t                            pfc_en_i,
  input  lossy_limit_t                          lossy_limit_i,
  // Receive stream
  input  logic                                  rx_valid_i,
  output logic                                  rx_ready_o,
  input  flit_t                                 rx_data_i,
  input  logic                                  rx_last_i,
  // Lookup of the header on rx_data_i (combinational, switch_tables); valid:
  // the header is taken and reaches the lookup (enabled, a known type, not COMB)
  output logic                                  lk_valid_o,
  output lk_req_t                               lk_req_o,
  input  lk_rsp_t                               lk_rsp_i,
  // Received PFC frame (to pfc_rx of this port)
  output logic                                  pfc_valid_o,
  output pfc_rx_frame_t                         pfc_o,
  // Events (one packet each, at its last flit), with the arrival priority
  output in_ev_t                                ev_o,
  // Cells held per arrival priority (including the packet being received)
  output cnt_t [NumPrio-1:0]                    occ_o,
  // Pending packet for the enqueue engine (head of the FIFO); ready pops it
  output logic                                  pend_valid_o,
  input  logic                                  pend_ready_i,
  output pend_t                                 pend_o,
  // Enqueue engine: it takes the pending head (with pend_ready_i) and
  // pushes the copies WRED kept, one per output, all in this cycle; none
  // kept: the packet's cells go now
  input  logic                                  take_i,
  input  port_mask_t                            push_i,
  // The take holds the packet (not popped, its copies in a fresh cell); the
  // pending head is held (its take is a retake); a fresh cell can be taken now
  input  logic                                  hold_i,
  output logic                                  held_o,
  output logic                                  cell_ok_o,
  input  hdr_patch_t [NumPorts-1:0]             patch_i,  // a copy's queue is its patch's prio
  // The engine's packet is a COMB packet: its copies carry the header the
  // combine unit made
  input  logic                                  comb_valid_i,
  input  pkt_hdr_t                              comb_hdr_i,
  // The pending head (a one-flit COMB_ARRIVE) is absorbed as the partner of
  // the COMB_ARRIVE the engine takes at another input: popped (pend_ready_i),
  // no copy, its cells go now
  input  logic                                  comb_absorb_i,
  // VOQ heads, per output and egress queue
  output logic [NumPorts-1:0][NumPrio-1:0]      voq_valid_o,
  output len_t [NumPorts-1:0][NumPrio-1:0]      voq_len_o,
  output cnt_t [NumPorts-1:0][NumPrio-1:0]      voq_cells_o,
  // The head slot of each VOQ: two outputs whose heads name one slot offer
  // copies of one packet (a shared read, switch_top)
  output cell_t [NumPorts-1:0][NumPrio-1:0]     voq_head_o,
  // Egress takes the head of VOQ[o][pop_q_i[o]] for every o in pop_valid_i:
  // one output in a cycle, or several sharing the read of a one-flit packet
  input  port_mask_t                            pop_valid_i,
  input  prio_t [NumPorts-1:0]                  pop_q_i,
  output pop_rsp_t                              pop_rsp_o [NumPorts],
  // Read port (the outputs streaming from this input, several only for the
  // one cell of a one-flit packet); rd_req_i.last: a copy has finished
  // (sent or discarded), rd_ends_i of them (all of rd_req_i.slot)
  input  rd_req_t                               rd_req_i,
  input  logic [RefW-1:0]                       rd_ends_i,
  output rd_rsp_t                               rd_rsp_o
);

  `SF_STATIC_ASSERT(gen_buf_cells_check, BufCells >= 2 && BufCells <= 32768)
  `SF_STATIC_ASSERT(gen_num_ports_check, NumPorts >= 1 && NumPorts <= MaxPorts)

  typedef logic [$bits(len_t):0] nflit_t;  // a flit count up to len_flits + 1
  typedef logic [RefW-1:0] ref_t;

  // ---------------------------------------------------------------------------
  // Storage (no reset: an entry is read only after the event that wrote it)
  // ---------------------------------------------------------------------------
  flit_t      cell_data_q [BufCells];
  cell_t      cell_next_q [BufCells];

  // Per slot (= the packet's first cell)
  len_t       slot_len_q [BufCells];
  prio_t      slot_prio_q [BufCells];
  logic       slot_lossy_q [BufCells];
  nflit_t     slot_ncells_q [BufCells];
  cell_t      slot_tail_q [BufCells];
  ref_t       refcnt_q [BufCells];
  cell_t      copy_next_q [BufCells][NumPorts];
  hdr_patch_t copy_patch_q [BufCells][NumPorts];
  // Live slots, for the assertions that name a slot (reset: none live).
  logic [BufCells-1:0] slot_used_q;
  cnt_t       used_slots_q;

  // Free cells: fresh_q .. BufCells-1 never used, plus the list head .. tail
  // of list_q returned cells; free_q counts both.
  cell_t free_head_q, free_tail_q;
  cnt_t list_q, fresh_q;
  // free_q and occ_q are read by the fabric tests' probes.
  cnt_t       free_q /* verilator public_flat_rd */;
  cnt_t [NumPrio-1:0] occ_q /* verilator public_flat_rd */;
  cnt_t       lossy_q;

  // The cell the next flit takes: the list's head, else the next fresh cell.
  cell_t      new_cell;
  assign new_cell = (list_q != '0) ? free_head_q : cell_t'(fresh_q);

  // VOQs
  cell_t [NumPorts-1:0][NumPrio-1:0] vq_head_q, vq_tail_q;
  cnt_t [NumPorts-1:0][NumPrio-1:0] vq_cnt_q, vq_cells_q;
  // Whether each VOQ holds a copy and its head packet's length, kept in step
  // with every push and pop so the egress reads them without a lookup.
  logic  [NumPorts-1:0][NumPrio-1:0] vq_any_q;
  len_t  [NumPorts-1:0][NumPrio-1:0] vq_hlen_q;

  // ---------------------------------------------------------------------------
  // Receive state machine
  // ---------------------------------------------------------------------------
  typedef enum logic [1:0] {
    RxIdle,
    RxStore,
    RxDiscard,
    RxPfc
  } rx_state_e;
  // DrPfcBad: a malformed PFC frame (more than two flits); DROP_BAD_PKT like
  // DrBad, but a PFC frame is not a packet for RX.
  typedef enum logic [2:0] {
    DrNone,
    DrDisabled,
    DrBad,
    DrNoRoute,
    DrBuf,
    DrPfcBad
  } drop_e;

  rx_state_e rx_state_q, rx_state_d;
  drop_e drop_q, drop_d;  // reason of the packet being discarded
  prio_t prio_q, prio_d;  // arrival priority of the current packet
  logic lossy_pkt_q, lossy_pkt_d;
  cell_t cur_slot_q, cur_slot_d;
  cell_t prev_cell_q, prev_cell_d;
  nflit_t count_q, count_d;  // flits seen, saturating at len + 1
  len_t len_q, len_d;
  prio_mask_t pfc_class_q, pfc_class_d;

  pkt_hdr_t hdr;
  pfc_frame_t pfc_first;  // the frame's first flit (its upper half is the quanta flit's)
  assign hdr = pkt_hdr_t'(rx_data_i);
  assign pfc_first = pfc_frame_t'({{(PFC_FRAME_BITS - FLIT_BITS){1'b0}}, rx_data_i});
  assign lk_req_o = '{src: hdr.src_lid, dst: hdr.dst_lid, flow: hdr.flow_label};

  logic pend_wready, pend_push;
  port_mask_t cur_mask_q, cur_mask_d;
  pkt_hdr_t cur_hdr_q, cur_hdr_d;
  assign rx_ready_o = pend_wready;

  logic beat;
  assign beat = rx_valid_i && rx_ready_o;

  // A holding take's emission (copies kept) takes a fresh cell now.
  logic halloc;
  cell_t hcell;
  prio_t h_prio;
  logic h_lossy;
  assign halloc = take_i && hold_i && push_i != '0;
  assign h_prio = slot_prio_q[pend_o.slot];
  assign h_lossy = slot_lossy_q[pend_o.slot];

  logic type_ok, comb, route_ok, lossless, free_fits, lossy_fits, admit;
  assign type_ok = hdr.pkt_type inside {PktData, PktNotify, PktAck, PktNack, PktCnp, PktArrive,
                                        PktRelease, PktCombArrive, PktCombRelease, PktCombShare,
                                        PktMgmt};
  // COMB packets are never looked up: the combine unit decides their copies
  // when the engine takes them (their pending mask and reference count stay
  // 0 until then).
  assign comb = hdr.pkt_type inside {PktCombArrive, PktCombRelease, PktCombShare};
  assign route_ok = comb || lk_rsp_i.hit;
  // A PFC frame's type is not in type_ok.
  assign lk_valid_o = rx_state_q == RxIdle && beat && enable_i && type_ok && !comb;
  port_mask_t adm_mask;
  assign adm_mask = comb ? '0 : lk_rsp_i.mask;
  assign lossless = pfc_en_i[hdr.prio];
  // The free cells a header admitted now may take: those a holding take's
  // fresh cell (halloc, below) leaves.
  cnt_t free_avail;
  assign free_avail = free_q - cnt_t'(halloc);
  assign free_fits = 32'(free_avail) >= 32'(hdr.len_flits);
  assign lossy_fits = (32'(lossy_q) + 32'(hdr.len_flits) <= 32'(lossy_limit_i)) && free_fits;

  logic alloc;          // a flit is written into new_cell this cycle
  logic new_slot;       // a slot is taken this cycle (the header was admitted)
  logic bad_free;       // the current packet is freed (bad length)
  logic pkt_done;       // the current packet is complete and valid

  always_comb begin
    rx_state_d = rx_state_q;
    drop_d = drop_q;
    prio_d = prio_q;
    lossy_pkt_d = lossy_pkt_q;
    cur_slot_d = cur_slot_q;
    prev_cell_d = prev_cell_q;
    count_d = count_q;
    len_d = len_q;
    cur_mask_d = cur_mask_q;
    cur_hdr_d = cur_hdr_q;
    pfc_class_d = pfc_class_q;
    alloc = 1'b0;
    new_slot = 1'b0;
    bad_free = 1'b0;
    pkt_done = 1'b0;
    admit = 1'b0;
    ev_o = '0;
    ev_o.prio = prio_q;
    pfc_valid_o = 1'b0;

    unique case (rx_state_q)
      RxIdle:
      if (beat) begin
        prio_d = hdr.prio;
        ev_o.prio = hdr.prio;
        len_d = hdr.len_flits;
        count_d = nflit_t'(1);
        if (hdr.pkt_type == PktPfc) begin
          // Link-local: a two-flit frame for pfc_rx, never buffered.
          pfc_class_d = pfc_first.class_enable;
          if (rx_last_i) begin
            ev_o.drop_bad = 1'b1;
          end else begin
            rx_state_d = RxPfc;
          end
        end else begin
          // Checks in the spec's order: enable, type, lookup, admission. The
          // length is checked only at the last flit (its count against
          // len_flits): len_flits 0 passes admission with 0 cells, stores
          // nothing and ends as DROP_BAD_PKT (the count is at least 1).
          if (!enable_i) drop_d = DrDisabled;
          else if (!type_ok) drop_d = DrBad;
          else if (!route_ok) drop_d = DrNoRoute;
          // A lossless packet finds its cells while the peer honours our
          // pauses (the driver's headroom); a peer that does not (its
          // watchdog ignores or has disabled PFC) overruns us: count it.
          else if (lossless ? !free_fits : !lossy_fits) drop_d = DrBuf;
          else if (hdr.len_flits == '0) drop_d = DrBad;
          else drop_d = DrNone;
          admit = drop_d == DrNone;
          if (admit) begin
            new_slot = 1'b1;
            alloc = 1'b1;
            cur_slot_d = new_cell;
            prev_cell_d = new_cell;
            cur_mask_d = adm_mask;
            cur_hdr_d = hdr;
            lossy_pkt_d = !lossless;
          end
          if (rx_last_i) begin
            ev_o.rx = 1'b1;
            if (admit) begin
              if (hdr.len_flits == len_t'(1)) pkt_done = 1'b1;
              else begin
                bad_free = 1'b1;
                ev_o.drop_bad = 1'b1;
              end
            end else begin
              ev_o.drop_disabled = drop_d == DrDisabled;
              ev_o.drop_bad = drop_d == DrBad;
              ev_o.drop_no_route = drop_d == DrNoRoute;
              ev_o.drop_buf = drop_d == DrBuf;
            end
          end else begin
            rx_state_d = admit ? RxStore : RxDiscard;
          end
        end
      end
      RxStore:
      if (beat) begin
        if (count_q < nflit_t'(len_q)) begin
          alloc = 1'b1;
          prev_cell_d = new_cell;
        end
        if (count_q <= nflit_t'(len_q)) count_d = count_q + nflit_t'(1);
        if (rx_last_i) begin
          rx_state_d = RxIdle;
          ev_o.rx = 1'b1;
          if (count_q + nflit_t'(1) == nflit_t'(len_q)) begin
            pkt_done = 1'b1;
          end else begin
            bad_free = 1'b1;
            ev_o.drop_bad = 1'b1;
          end
        end
      end
      RxDiscard:
      if (beat && rx_last_i) begin
        rx_state_d = RxIdle;
        ev_o.rx = drop_q != DrPfcBad;
        ev_o.drop_disabled = drop_q == DrDisabled;
        ev_o.drop_bad = drop_q == DrBad || drop_q == DrPfcBad;
        ev_o.drop_no_route = drop_q == DrNoRoute;
        ev_o.drop_buf = drop_q == DrBuf;
      end
      // A frame is honoured only with two flits and len_flits 2; any other
      // is DROP_BAD_PKT at its last flit, at the header's prio bits.
      RxPfc:
      if (beat) begin
        if (rx_last_i) begin
          rx_state_d = RxIdle;
          if (len_q == len_t'(2)) pfc_valid_o = 1'b1;
          else ev_o.drop_bad = 1'b1;
        end else begin
          drop_d = DrPfcBad;
          rx_state_d = RxDiscard;
        end
      end
      default: rx_state_d = RxIdle;
    endcase
  end
  assign pfc_o = '{class_enable: pfc_class_q, quanta: pfc_quanta_t'(rx_data_i)};

  // ---------------------------------------------------------------------------
  // Pending FIFO: complete packets waiting for the enqueue engine
  // ---------------------------------------------------------------------------
  pend_t pend_wdata;
  logic [$clog2(PendDepth+1)-1:0] pend_count;

  assign pend_push = pkt_done;
  assign pend_wdata = new_slot ? '{slot: new_cell, mask: adm_mask, hdr: hdr}
                               : '{slot: cur_slot_q, mask: cur_mask_q, hdr: cur_hdr_q};
  sync_fifo #(
    .T(pend_t),
    .Depth(PendDepth)
  ) u_pend (
    .clk_i,
    .rst_ni,
    .clr_i(1'b0),
    .wvalid_i(pend_push),
    .wready_o(pend_wready),
    .wdata_i(pend_wdata),
    .rvalid_o(pend_valid_o),
    .rready_i(pend_ready_i),
    .rdata_o(pend_o),
    .count_o(pend_count)
  );

  // ---------------------------------------------------------------------------
  // Reference counts: a packet gets its count when the engine takes it
  // (take_i, the pending head): the number of copies it pushes then. With
  // none (all dropped by WRED, or a COMB packet absorbed or refused) its
  // cells go at once, on release a. An absorbed partner (comb_absorb_i) goes
  // the same way: the engine's packet is at another input, so path a is free
  // here. The end of a copy's stream takes one (path b), the copies of a
  // shared read ending together one each; the last one returns the
  // packet's cells. The two never name the same slot in one
  // cycle: a packet has no copy before the engine takes it.
  // ---------------------------------------------------------------------------
  logic absorb;
  ref_t take_ref;
  cell_t slot_a;  // the slot on path a
  assign take_ref = ref_t'($countones(push_i));
  assign absorb = (take_i && !hold_i && push_i == '0) || comb_absorb_i;
  assign slot_a = pend_o.slot;
  logic dec_b;  // copies of rd_req_i.slot finish
  logic rel_a, rel_b, rel_c;  // a slot whose last reference went; c: a bad-length packet
  assign dec_b = rd_ends_i != '0;
  ref_t ref_b;  // its count now
  assign ref_b = refcnt_q[rd_req_i.slot];
  assign rel_a = absorb;
  assign rel_b = dec_b && ref_b == rd_ends_i;
  // A bad-length packet's cells written before this cycle; a flit written in
  // the same cycle is never taken from the list.
  assign rel_c = bad_free && !new_slot;

  // ---------------------------------------------------------------------------
  // Free list: one cell taken at the head (alloc), up to three chains spliced
  // at the tail (a, b, c, in that order)
  // ---------------------------------------------------------------------------
  logic take;  // the flit written this cycle keeps its cell
  prio_t take_prio;
  assign take = alloc && !bad_free;
  assign take_prio = new_slot ? hdr.prio : prio_q;

  cell_t [2:0] rel_head, rel_tail;
  nflit_t [2:0] rel_n;
  prio_t  [2:0] rel_prio;
  logic   [2:0] rel_lossy;
  logic [2:0] rel;
  assign rel = {rel_c, rel_b, rel_a};
  assign rel_head[0] = slot_a;
  assign rel_head[1] = rd_req_i.slot;
  assign rel_head[2] = cur_slot_q;
  assign rel_tail[0] = slot_tail_q[slot_a];
  assign rel_tail[1] = slot_tail_q[rd_req_i.slot];
  assign rel_tail[2] = prev_cell_q;
  for (genvar k = 0; k < 3; k++) begin : gen_rel
    assign rel_n[k] = slot_ncells_q[rel_head[k]];
    assign rel_prio[k] = slot_prio_q[rel_head[k]];
    assign rel_lossy[k] = slot_lossy_q[rel_head[k]];
  end

  // Links written this cycle: the list's tail to the first chain (when the
  // list keeps a cell), each chain's tail to the next.
  logic from_list;  // the cell taken comes from the list (else from the fresh cells)
  logic list_left;  // the list keeps a cell after this cycle's takes
  // The hold's fresh cell comes after rx's: the list's next cell, else the
  // next never-used cell.
  logic h_from_list;
  cnt_t list_after_rx;
  assign from_list = list_q != '0;
  assign list_after_rx = list_q - cnt_t'(take && from_list);
  assign h_from_list = list_after_rx != '0;
  assign hcell = h_from_list ? ((take && from_list) ? cell_next_q[free_head_q] : free_head_q) :
                               cell_t'(fresh_q + cnt_t'(take && !from_list));
  assign list_left = list_after_rx - cnt_t'(halloc && h_from_list) != '0;

  logic [2:0] link_we;
  cell_t [2:0] link_addr, link_data;
  cell_t free_head_d, free_tail_d;
  cnt_t list_d, free_d, lossy_d, freed_lossy;
  cnt_t [NumPrio-1:0] occ_d;
  always_comb begin
    cell_t tail;
    logic any;
    cell_t first;
    tail = free_tail_q;
    any = list_left;
    first = '0;
    list_d = list_after_rx - cnt_t'(halloc && h_from_list);
    free_d = free_q - cnt_t'(take) - cnt_t'(halloc);
    occ_d = occ_q;
    freed_lossy = '0;
    for (int k = 0; k < 3; k++) begin
      link_we[k] = rel[k] && any;
      link_addr[k] = tail;
      link_data[k] = rel_head[k];
      if (rel[k]) begin
        if (!any) first = rel_head[k];
        any = 1'b1;
        tail = rel_tail[k];
        list_d = list_d + cnt_t'(rel_n[k]);
        free_d = free_d + cnt_t'(rel_n[k]);
        occ_d[rel_prio[k]] = occ_d[rel_prio[k]] - cnt_t'(rel_n[k]);
        if (rel_lossy[k]) freed_lossy = freed_lossy + cnt_t'(rel_n[k]);
      end
    end
    free_tail_d = tail;
    if (!list_left) free_head_d = first;
    else if (take && from_list && halloc && h_from_list) free_head_d = cell_next_q[hcell];
    else if ((take && from_list) || (halloc && h_from_list)) free_head_d = cell_next_q[free_head_q];
    else free_head_d = free_head_q;
    if (take) occ_d[take_prio] = occ_d[take_prio] + cnt_t'(1);
    if (halloc) occ_d[h_prio] = occ_d[h_prio] + cnt_t'(1);
    lossy_d = lossy_q - freed_lossy + cnt_t'(take && (new_slot ? !lossless : lossy_pkt_q)) +
              cnt_t'(halloc && h_lossy);
  end

  // ---------------------------------------------------------------------------
  // VOQs: per output up to one pop (egress; several outputs pop in one
  // cycle only in a shared read) and one push (enqueue engine) per cycle,
  // the pop maybe on the queue of the push. Each output's VOQs are lists
  // of their own (copy_next[slot][o]), so the outputs' updates never meet.
  // ---------------------------------------------------------------------------
  cell_t push_slot;  // the engine's packet: the pending head
  prio_t [NumPorts-1:0] push_q;  // each copy's egress queue: its patched prio
  logic [NumPorts-1:0] same_q, link_copy;
  cnt_t [NumPorts-1:0] push_cnt;
  len_t push_len;
  assign push_slot = halloc ? hcell : pend_o.slot;
  assign push_len = halloc ? len_t'(1) : slot_len_q[pend_o.slot];

  // Per output: the head of the VOQ it would pop, its length, the next copy.
  cell_t [NumPorts-1:0] pop_head, pop_next;
  len_t [NumPorts-1:0] pop_head_len, pop_next_len;
  cnt_t [NumPorts-1:0] pop_cnt;
  for (genvar o = 0; o < NumPorts; o++) begin : gen_push
    assign pop_head[o] = vq_head_q[o][pop_q_i[o]];
    assign pop_head_len[o] = slot_len_q[pop_head[o]];
    assign pop_next[o] = copy_next_q[pop_head[o]][o];
    assign pop_next_len[o] = slot_len_q[pop_next[o]];
    assign pop_cnt[o] = vq_cnt_q[o][pop_q_i[o]];
    // The slot is also the copy's first cell: a slot is its packet's first cell.
    assign pop_rsp_o[o] = '{slot: pop_head[o], patch: copy_patch_q[pop_head[o]][o]};
    assign push_q[o] = patch_i[o].prio;
    assign same_q[o] = pop_valid_i[o] && push_i[o] && pop_q_i[o] == push_q[o];
    assign push_cnt[o] = vq_cnt_q[o][push_q[o]];
    // The new copy follows one still queued (not the one popped now).
    assign link_copy[o] = push_i[o] && push_cnt[o] > cnt_t'(same_q[o]);
  end

  assign voq_valid_o = vq_any_q;
  assign voq_len_o = vq_hlen_q;
  assign voq_cells_o = vq_cells_q;
  assign voq_head_o = vq_head_q;
  assign rd_rsp_o = '{next: cell_next_q[rd_req_i.addr], data: cell_data_q[rd_req_i.addr]};
  assign occ_o = occ_q;

  // The held head, and the cells the packet being received still needs
  // (its flits not yet written, this cycle's included): a fresh cell may be
  // taken only from the cells beyond them.
  logic held_q;
  cell_t held_slot_q;  // assertion bookkeeping: the held packet's slot
  nflit_t rx_need;
  assign rx_need = (rx_state_q == RxStore && count_q < nflit_t'(len_q)) ?
                   nflit_t'(len_q) - count_q : '0;
  assign cell_ok_o = 32'(free_q) > 32'(rx_need);
  assign held_o = held_q;

  // ---------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------
  cell_t rx_slot;  // slot of the flit written this cycle
  assign rx_slot = new_slot ? new_cell : cur_slot_q;

  always_ff @(posedge clk_i) begin
    if (alloc) cell_data_q[new_cell] <= rx_data_i;
    // A packet's chain: its previous cell to the one taken now.
    if (take && !new_slot) cell_next_q[prev_cell_q] <= new_cell;
    for (int k = 0; k < 3; k++) begin
      if (link_we[k]) cell_next_q[link_addr[k]] <= link_data[k];
    end
    if (new_slot) begin
      slot_len_q[new_cell] <= hdr.len_flits;
      slot_prio_q[new_cell] <= hdr.prio;
      slot_lossy_q[new_cell] <= !lossless;
      refcnt_q[new_cell] <= '0;  // no copy until the engine takes it
    end
    if (take) begin
      slot_ncells_q[rx_slot] <= new_slot ? nflit_t'(1) : slot_ncells_q[cur_slot_q] + nflit_t'(1);
      slot_tail_q[rx_slot] <= new_cell;
    end
    if (take_i) refcnt_q[push_slot] <= take_ref;
    // The copies of a COMB packet carry the header the combine unit made
    // (its type and src_lid 0): written into the packet's first cell, which
    // no output reads before its copies are queued (next cycle).
    if (comb_valid_i && push_i != '0) cell_data_q[push_slot] <= flit_t'(comb_hdr_i);
    // A holding take's fresh cell: a one-flit packet of its own.
    if (halloc) begin
      slot_len_q[hcell] <= len_t'(1);
      slot_prio_q[hcell] <= h_prio;
      slot_lossy_q[hcell] <= h_lossy;
      slot_ncells_q[hcell] <= nflit_t'(1);
      slot_tail_q[hcell] <= hcell;
    end
    if (dec_b) refcnt_q[rd_req_i.slot] <= ref_b - rd_ends_i;
    for (int o = 0; o < NumPorts; o++) begin
      if (push_i[o]) copy_patch_q[push_slot][o] <= patch_i[o];
      if (link_copy[o]) copy_next_q[vq_tail_q[o][push_q[o]]][o] <= push_slot;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_state_q <= RxIdle;
      drop_q <= DrNone;
      prio_q <= '0;
      lossy_pkt_q <= 1'b0;
      cur_slot_q <= '0;
      prev_cell_q <= '0;
      count_q <= '0;
      len_q <= '0;
      cur_mask_q <= '0;
      cur_hdr_q <= '0;
      pfc_class_q <= '0;
      slot_used_q <= '0;
      used_slots_q <= '0;
      free_head_q <= '0;
      free_tail_q <= '0;
      list_q <= '0;
      fresh_q <= '0;
      free_q <= cnt_t'(BufCells);
      occ_q <= '0;
      lossy_q <= '0;
      vq_head_q <= '0;
      vq_tail_q <= '0;
      vq_cnt_q <= '0;
      vq_cells_q <= '0;
      vq_any_q <= '0;
      vq_hlen_q <= '0;
      held_q <= 1'b0;
      held_slot_q <= '0;
    end else begin
      if (pend_ready_i) held_q <= 1'b0;
      else if (take_i && hold_i) held_q <= 1'b1;
      if (take_i && hold_i) held_slot_q <= pend_o.slot;
      rx_state_q <= rx_state_d;
      drop_q <= drop_d;
      prio_q <= prio_d;
      lossy_pkt_q <= lossy_pkt_d;
      cur_slot_q <= cur_slot_d;
      prev_cell_q <= prev_cell_d;
      count_q <= count_d;
      len_q <= len_d;
      cur_mask_q <= cur_mask_d;
      cur_hdr_q <= cur_hdr_d;
      pfc_class_q <= pfc_class_d;
      free_head_q <= free_head_d;
      free_tail_q <= free_tail_d;
      list_q <= list_d;
      fresh_q <= fresh_q + cnt_t'(take && !from_list) + cnt_t'(halloc && !h_from_list);
      free_q <= free_d;
      occ_q <= occ_d;
      lossy_q <= lossy_d;
      // Live slots: the new one (unless freed at once), minus the released.
      if (rel_a) slot_used_q[slot_a] <= 1'b0;
      if (rel_b) slot_used_q[rd_req_i.slot] <= 1'b0;
      if (rel_c) slot_used_q[cur_slot_q] <= 1'b0;
      if (new_slot && !bad_free) slot_used_q[new_cell] <= 1'b1;
      if (halloc) slot_used_q[hcell] <= 1'b1;
      used_slots_q <= used_slots_q + cnt_t'(new_slot && !bad_free) + cnt_t'(halloc) -
                      cnt_t'(rel_a) - cnt_t'(rel_b) - cnt_t'(rel_c);
      // VOQ[o][pop] loses its head, VOQ[o][push] gains a tail; on the same
      // queue both happen (the push's update, written last, counts the pop).
      for (int o = 0; o < NumPorts; o++) begin
        if (pop_valid_i[o]) begin
          vq_head_q[o][pop_q_i[o]] <= pop_next[o];
          vq_hlen_q[o][pop_q_i[o]] <= pop_next_len[o];
          vq_any_q[o][pop_q_i[o]] <= pop_cnt[o] != cnt_t'(1);
          vq_cnt_q[o][pop_q_i[o]] <= pop_cnt[o] - cnt_t'(1);
          vq_cells_q[o][pop_q_i[o]] <= vq_cells_q[o][pop_q_i[o]] - cnt_t'(pop_head_len[o]);
        end
        if (push_i[o]) begin
          vq_tail_q[o][push_q[o]] <= push_slot;
          if (push_cnt[o] - cnt_t'(same_q[o]) == '0) begin
            vq_head_q[o][push_q[o]] <= push_slot;
            vq_hlen_q[o][push_q[o]] <= push_len;
          end
          vq_any_q[o][push_q[o]] <= 1'b1;
          vq_cnt_q[o][push_q[o]] <= push_cnt[o] - cnt_t'(same_q[o]) + cnt_t'(1);
          vq_cells_q[o][push_q[o]] <= vq_cells_q[o][push_q[o]] -
                                      (same_q[o] ? cnt_t'(pop_head_len[o]) : '0) + cnt_t'(push_len);
        end
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------
  // All in the immediate form (syncfab_assert.svh): evaluated once per clock
  // edge with the values a concurrent property would sample, without the
  // per-evaluation sampled copies (this block is instantiated per input). An
  // implication is written `!(a) || (b)`: in the verilated model that is one
  // branch that is never taken, where SF_ASSERT_IMM_IMP's antecedent is a
  // branch on traffic (often mispredicted) and these consequents are cheap.
  cell_t took_slot_q;  // assertion bookkeeping: the packet the engine took last
  ref_t took_ref_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      took_slot_q <= '0;
      took_ref_q <= '0;
    end else if (take_i) begin
      took_slot_q <= push_slot;
      took_ref_q <= take_ref;
    end
  end
  logic hdr_beat;  // the header of a packet or frame is taken this cycle
  assign hdr_beat = rx_state_q == RxIdle && beat;
  // Nothing is stored without its cells, lossless or not.
  `SF_ASSERT_IMM(a_admit_fits, !(hdr_beat && admit) || free_fits)
  `SF_ASSERT_IMM(a_alloc_has_cell, !alloc || free_avail != '0)
  // A live packet's first cell is never on the free list's head.
  `SF_ASSERT_IMM(a_take_free_cell, !take || !slot_used_q[new_cell])
  `SF_ASSERT_IMM(a_free_count, 32'(free_q) == 32'(list_q) + 32'(BufCells) - 32'(fresh_q))
  // Occupancy per arrival priority adds up to the cells not free.
  function automatic int unsigned occ_total(cnt_t [NumPrio-1:0] occ);
    int unsigned sum = 0;
    for (int p = 0; p < NumPrio; p++) sum += 32'(occ[p]);
    return sum;
  endfunction
  `SF_ASSERT_IMM(a_occ_sums_to_used, occ_total(occ_q) == 32'(BufCells) - 32'(free_q))
  // No cell leak: with no live packet and none being received, every cell is free.
  // verilog_format: off
  `SF_ASSERT_IMM(a_no_cell_leak, !(used_slots_q == '0 && rx_state_q != RxStore) ||
                                 (free_q == cnt_t'(BufCells) && lossy_q == '0))
  `SF_ASSERT_IMM(a_lossy_within_used, 32'(lossy_q) + 32'(free_q) <= 32'(BufCells))
  `SF_ASSERT_IMM(a_pend_not_full_on_push, !pend_push || pend_wready)
  // rx_ready is low only while the pending FIFO is full.
  `SF_ASSERT_IMM(a_rx_ready_iff_pend_room, rx_ready_o == (32'(pend_count) < PendDepth))
  `SF_ASSERT_IMM_FORALL(a_pop_nonempty, pop_valid_i != '0, o, NumPorts, pop_valid_i[o],
                        pop_cnt[o] != '0)
  // What the egress saw of the popped queue is its true head.
  `SF_ASSERT_IMM_FORALL(a_pop_head_seen, pop_valid_i != '0, o, NumPorts, pop_valid_i[o],
                        vq_any_q[o][pop_q_i[o]] && vq_hlen_q[o][pop_q_i[o]] == pop_head_len[o])
  // A VOQ shows a copy iff it holds one (checked on the queues a pop or a
  // push names, which are the only ones that change).
  `SF_ASSERT_IMM_FORALL(a_voq_valid_iff_nonempty, pop_valid_i != '0, o, NumPorts,
                        pop_valid_i[o], vq_any_q[o][pop_q_i[o]] == (pop_cnt[o] != '0))
  port_t pop_first;  // assertion bookkeeping: the lowest output popping
  always_comb begin
    pop_first = '0;
    for (int o = NumPorts - 1; o >= 0; o--) begin
      if (pop_valid_i[o]) pop_first = port_t'(o);
    end
  end
  // Several pops in one cycle are the copies of one one-flit packet (a
  // shared read): the same head slot at every popping output.
  `SF_ASSERT_IMM_FORALL(a_pops_share_one_slot, !$onehot0(pop_valid_i), o, NumPorts,
                        pop_valid_i[o],
                        pop_head_len[o] == len_t'(1) && pop_head[o] == pop_rsp_o[pop_first].slot)
  `SF_ASSERT_IMM_FORALL(a_voq_push_valid_iff_nonempty, push_i != '0, o, NumPorts, push_i[o],
                        vq_any_q[o][push_q[o]] == (push_cnt[o] != '0))
  // Slots and reference counts: a copy, a finished copy and a released
  // packet name a live slot, a copy's slot still holds a reference, no count
  // underflows; the live-slot count is 0 exactly when no slot is live.
  // The engine takes the live pending head, popping it, with no copy yet
  // (so no reference and no copy finishing); its pushes come with it.
  `SF_ASSERT_IMM(a_take_pops_head,
                 !take_i || (pend_valid_o && (pend_ready_i != hold_i) && !comb_absorb_i &&
                             slot_used_q[pend_o.slot] && refcnt_q[pend_o.slot] == '0 &&
                             !(rd_req_i.last && rd_req_i.slot == pend_o.slot)))
  `SF_ASSERT_IMM(a_push_with_take, push_i == '0 || take_i)
  // The count the engine's packet gets is the number of its copies pushed
  // (checked at the next edge; none of them can have finished by then).
  `SF_ASSERT_IMM_NXT(a_refcnt_is_kept_copies, take_i, refcnt_q[took_slot_q] == took_ref_q)
  `SF_ASSERT_IMM(a_pop_is_take_or_absorb,
                 pend_ready_i == ((take_i && !hold_i) || comb_absorb_i))
  // Holds: only a COMB packet's take holds it; a held packet stays the
  // pending head and is taken again (retaken) only from there, never
  // absorbed as a partner; a fresh cell is taken only when free, beyond the
  // cells the packet being received still needs, never a live slot's or
  // rx's cell of this cycle.
  `SF_ASSERT_IMM(a_hold_comb_take, !hold_i || (take_i && comb_valid_i))
  `SF_ASSERT_IMM(a_held_is_head,
                 !held_q || (pend_valid_o && pend_o.slot == held_slot_q &&
                             slot_used_q[held_slot_q] && refcnt_q[held_slot_q] == '0 &&
                             !comb_absorb_i))
  `SF_ASSERT_IMM(a_hold_cell_free,
                 !halloc || (cell_ok_o && 32'(free_q) >= 32'(take) + 1 &&
                             !slot_used_q[hcell] && !(take && hcell == new_cell)))
  `SF_ASSERT_IMM(a_hold_cell_one_flit,
                 !halloc || (comb_valid_i && pend_o.hdr.len_flits == len_t'(1)))
  `SF_ASSERT_IMM(a_done_on_used_slot, !rd_req_i.last || slot_used_q[rd_req_i.slot])
  `SF_ASSERT_IMM(a_release_live_slot, !rel_c || slot_used_q[cur_slot_q])
  // The read port's `last` and the count of copies ending agree; copies
  // end together only in a shared read, of a one-flit packet.
  `SF_ASSERT_IMM(a_ends_iff_last, rd_req_i.last == (rd_ends_i != '0))
  `SF_ASSERT_IMM(a_shared_ends_one_flit,
                 !(rd_ends_i > ref_t'(1)) || slot_len_q[rd_req_i.slot] == len_t'(1))
  `SF_ASSERT_IMM(a_refcnt_no_underflow_done, !dec_b || ref_b >= rd_ends_i)
  `SF_ASSERT_IMM(a_slot_count, (used_slots_q == '0) == (slot_used_q == '0))
  // The combine unit's decision is on the packet the engine takes here, a
  // COMB packet (its copies, if any, start now). Its partners, absorbed with
  // it, are other inputs' heads (below).
  `SF_ASSERT_IMM(a_comb_on_pend_head,
                 !comb_valid_i || (take_i && pend_o.hdr.pkt_type inside
                                   {PktCombArrive, PktCombRelease, PktCombShare}))
  // A packet without copies is released on path a, with no push.
  `SF_ASSERT_IMM(a_absorb_no_copy, !absorb || push_i == '0)
  // A partner is this input's pending head, a live one-flit COMB_ARRIVE with
  // no copy being read, popped now; the engine takes no packet here.
  `SF_ASSERT_IMM(a_comb_partner_on_pend_head,
                 !comb_absorb_i || (pend_valid_o && pend_ready_i && !take_i &&
                                    pend_o.hdr.pkt_type == PktCombArrive &&
                                    pend_o.hdr.len_flits == len_t'(1) &&
                                    slot_used_q[pend_o.slot] && refcnt_q[pend_o.slot] == '0 &&
                                    !(rd_req_i.last && rd_req_i.slot == pend_o.slot)))
  // A released chain ends at the cell its packet took last.
  `SF_ASSERT_IMM(a_release_chain_len,
                 !rel_c || rel_n[2] == count_q || rel_n[2] == nflit_t'(len_q))
  // Every received packet has exactly one fate, at its last flit: stored
  // whole (pending for the engine) or one drop reason; a malformed PFC frame
  // is DROP_BAD_PKT and not a packet (no RX).
  `SF_ASSERT_IMM(a_one_fate,
                 (ev_o.rx ? $onehot({pkt_done, ev_o.drop_disabled, ev_o.drop_bad,
                                     ev_o.drop_no_route, ev_o.drop_buf})
                          : !(pkt_done || ev_o.drop_disabled || ev_o.drop_no_route ||
                              ev_o.drop_buf)) &&
                 (!(ev_o.rx || ev_o.drop_bad || pfc_valid_o) || (beat && rx_last_i)))
  // LOSSY_LIMIT never applies to a lossless priority: a lossless DROP_BUF is
  // a buffer without the packet's cells (its peer ignored our pauses). A
  // lossy packet is admitted only within LOSSY_LIMIT and the free cells.
  `SF_ASSERT_IMM(a_lossless_ignores_lossy_limit,
                 !(hdr_beat && hdr.pkt_type != PktPfc && drop_d == DrBuf && pfc_en_i[hdr.prio]) ||
                 32'(free_avail) < 32'(hdr.len_flits))
  `SF_ASSERT_IMM(a_admit_lossy_limit,
                 !(hdr_beat && admit && !pfc_en_i[hdr.prio]) ||
                 (32'(lossy_q) + 32'(hdr.len_flits) <= 32'(lossy_limit_i) &&
                  32'(hdr.len_flits) <= 32'(free_avail)))
  // A PFC frame is link-local: never stored, never a slot.
  `SF_ASSERT_IMM(a_pfc_never_stored,
                 !(rx_state_q == RxPfc || (hdr_beat && hdr.pkt_type == PktPfc)) ||
                 (!alloc && !new_slot))

  // Corners the switch's coverage test must reach (tests/rtl/switch,
  // switch_cover_test.cpp).
  `SF_COVER(c_buf_full, free_q == '0)
  `SF_COVER(c_pend_full_backpressure, rx_valid_i && !rx_ready_o)
  `SF_COVER(c_drop_disabled, ev_o.drop_disabled)
  `SF_COVER(c_drop_bad_pkt, ev_o.drop_bad && ev_o.rx)
  `SF_COVER(c_drop_bad_len, ev_o.drop_bad && bad_free)
  `SF_COVER(c_drop_bad_pfc, ev_o.drop_bad && !ev_o.rx)
  `SF_COVER(c_drop_no_route, ev_o.drop_no_route)
  `SF_COVER(c_drop_buf_lossy_limit, hdr_beat && hdr.pkt_type != PktPfc && drop_d == DrBuf &&
                                    !pfc_en_i[hdr.prio] && free_fits)
  `SF_COVER(c_drop_buf_no_cells, hdr_beat && hdr.pkt_type != PktPfc && drop_d == DrBuf &&
                                 !free_fits)
  // verilog_format: on
  `SF_COVER(c_pfc_frame_rx, pfc_valid_o)
  `SF_COVER(c_three_releases, rel_a && rel_b && rel_c)

  logic unused_ingress;
  assign unused_ingress = ^{pend_count, pfc_first, lk_rsp_i.skip};  // skip: counted by the tables

endmodule
