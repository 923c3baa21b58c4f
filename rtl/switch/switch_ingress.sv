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
// reference count of the copies not yet gone (sent or dropped by WRED). A
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
// engine (switch_top) drains one copy per cycle. rx_ready_o is low only
// while that FIFO is full.

`include "syncfab_assert.svh"

module switch_ingress
  import syncfab_fmt_pkg::*;
  import switch_pkg::*;
#(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned BufCells = 256,
  parameter int unsigned PendDepth = 4,
  localparam int unsigned CellW = $clog2(BufCells),
  localparam int unsigned CntW = $clog2(BufCells + 1),
  localparam int unsigned PortW = (NumPorts > 1) ? $clog2(NumPorts) : 1,
  localparam int unsigned RefW = $clog2(NumPorts + 1)
) (
  input  logic                                  clk_i,
  input  logic                                  rst_ni,
  // Configuration (CSRs)
  input  logic                                  enable_i,
  input  prio_mask_t                            pfc_en_i,
  input  logic [15:0]                           lossy_limit_i,
  // Receive stream
  input  logic                                  rx_valid_i,
  output logic                                  rx_ready_o,
  input  flit_t                                 rx_data_i,
  input  logic                                  rx_last_i,
  // Lookup of the header on rx_data_i (combinational, switch_tables)
  output lid_t                                  lk_dst_o,
  input  logic                                  lk_hit_i,
  input  logic [NumPorts-1:0]                   lk_mask_i,
  // Received PFC frame (to pfc_rx of this port)
  output logic                                  pfc_valid_o,
  output prio_mask_t                            pfc_class_o,
  output pfc_quanta_t                           pfc_quanta_o,
  // Events (one packet each, at its last flit), with the arrival priority
  output logic                                  ev_rx_o,
  output logic                                  ev_drop_disabled_o,
  output logic                                  ev_drop_bad_o,
  output logic                                  ev_drop_no_route_o,
  output logic                                  ev_drop_buf_o,
  output prio_t                                 ev_prio_o,
  // Cells held per arrival priority (including the packet being received)
  output logic [NumPrio-1:0][CntW-1:0]          occ_o,
  // Pending packet for the enqueue engine (head of the FIFO)
  output logic                                  pend_valid_o,
  output logic [CellW-1:0]                      pend_slot_o,
  output pkt_hdr_t                              pend_hdr_o,
  output logic [NumPorts-1:0]                   pend_mask_o,
  input  logic                                  pend_pop_i,
  // Enqueue engine: one copy per cycle
  input  logic                                  copy_valid_i,
  input  logic                                  copy_keep_i,  // 0: dropped by WRED
  input  logic [CellW-1:0]                      copy_slot_i,
  input  logic [PortW-1:0]                      copy_port_i,
  input  hdr_patch_t                            copy_patch_i, // the copy's queue is its prio
  // VOQ heads, per output and egress queue
  output logic [NumPorts-1:0][NumPrio-1:0]      voq_valid_o,
  output len_t [NumPorts-1:0][NumPrio-1:0]      voq_len_o,
  output logic [NumPorts-1:0][NumPrio-1:0][CntW-1:0] voq_cells_o,
  // Egress takes the head of VOQ[pop_port][pop_q]
  input  logic                                  pop_i,
  input  logic [PortW-1:0]                      pop_port_i,
  input  prio_t                                 pop_q_i,
  output logic [CellW-1:0]                      pop_slot_o,   // of VOQ[pop_port_i][pop_q_i]
  output logic [CellW-1:0]                      pop_cell_o,   // its first cell
  output hdr_patch_t                            pop_patch_o,
  // Read port (the one output streaming from this input)
  input  logic [CellW-1:0]                      rd_cell_i,
  output flit_t                                 rd_data_o,
  output logic [CellW-1:0]                      rd_next_o,
  // A copy streamed from this input has finished (sent or discarded)
  input  logic                                  done_i,
  input  logic [CellW-1:0]                      done_slot_i
);

  `SF_STATIC_ASSERT(gen_buf_cells_check, BufCells >= 2 && BufCells <= 32768)
  `SF_STATIC_ASSERT(gen_num_ports_check, NumPorts >= 1 && NumPorts <= 8)

  typedef logic [CellW-1:0] cell_t;
  typedef logic [CntW-1:0] cnt_t;
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
  assign lk_dst_o = hdr.dst_lid;

  logic pend_wready, pend_push;
  logic [NumPorts-1:0] cur_mask_q, cur_mask_d;
  pkt_hdr_t cur_hdr_q, cur_hdr_d;
  assign rx_ready_o = pend_wready;

  logic beat;
  assign beat = rx_valid_i && rx_ready_o;

  logic type_ok, lossless, free_fits, lossy_fits, admit;
  assign type_ok = hdr.pkt_type inside {PktData, PktNotify, PktAck, PktNack, PktCnp};
  assign lossless = pfc_en_i[hdr.prio];
  assign free_fits = 32'(free_q) >= 32'(hdr.len_flits);
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
    ev_rx_o = 1'b0;
    ev_drop_disabled_o = 1'b0;
    ev_drop_bad_o = 1'b0;
    ev_drop_no_route_o = 1'b0;
    ev_drop_buf_o = 1'b0;
    ev_prio_o = prio_q;
    pfc_valid_o = 1'b0;

    unique case (rx_state_q)
      RxIdle:
      if (beat) begin
        prio_d = hdr.prio;
        ev_prio_o = hdr.prio;
        len_d = hdr.len_flits;
        count_d = nflit_t'(1);
        if (hdr.pkt_type == PktPfc) begin
          // Link-local: a two-flit frame for pfc_rx, never buffered.
          pfc_class_d = pfc_first.class_enable;
          if (rx_last_i) begin
            ev_drop_bad_o = 1'b1;
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
          else if (!lk_hit_i) drop_d = DrNoRoute;
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
            cur_mask_d = lk_mask_i;
            cur_hdr_d = hdr;
            lossy_pkt_d = !lossless;
          end
          if (rx_last_i) begin
            ev_rx_o = 1'b1;
            if (admit) begin
              if (hdr.len_flits == len_t'(1)) pkt_done = 1'b1;
              else begin
                bad_free = 1'b1;
                ev_drop_bad_o = 1'b1;
              end
            end else begin
              ev_drop_disabled_o = drop_d == DrDisabled;
              ev_drop_bad_o = drop_d == DrBad;
              ev_drop_no_route_o = drop_d == DrNoRoute;
              ev_drop_buf_o = drop_d == DrBuf;
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
          ev_rx_o = 1'b1;
          if (count_q + nflit_t'(1) == nflit_t'(len_q)) begin
            pkt_done = 1'b1;
          end else begin
            bad_free = 1'b1;
            ev_drop_bad_o = 1'b1;
          end
        end
      end
      RxDiscard:
      if (beat && rx_last_i) begin
        rx_state_d = RxIdle;
        ev_rx_o = drop_q != DrPfcBad;
        ev_drop_disabled_o = drop_q == DrDisabled;
        ev_drop_bad_o = drop_q == DrBad || drop_q == DrPfcBad;
        ev_drop_no_route_o = drop_q == DrNoRoute;
        ev_drop_buf_o = drop_q == DrBuf;
      end
      // A frame is honoured only with two flits and len_flits 2; any other
      // is DROP_BAD_PKT at its last flit, at the header's prio bits.
      RxPfc:
      if (beat) begin
        if (rx_last_i) begin
          rx_state_d = RxIdle;
          if (len_q == len_t'(2)) pfc_valid_o = 1'b1;
          else ev_drop_bad_o = 1'b1;
        end else begin
          drop_d = DrPfcBad;
          rx_state_d = RxDiscard;
        end
      end
      default: rx_state_d = RxIdle;
    endcase
  end
  assign pfc_class_o = pfc_class_q;
  assign pfc_quanta_o = pfc_quanta_t'(rx_data_i);

  // ---------------------------------------------------------------------------
  // Pending FIFO: complete packets waiting for the enqueue engine
  // ---------------------------------------------------------------------------
  typedef struct packed {
    cell_t               slot;
    pkt_hdr_t            hdr;
    logic [NumPorts-1:0] mask;
  } pend_t;
  pend_t pend_wdata, pend_rdata;
  logic [$clog2(PendDepth+1)-1:0] pend_count;

  assign pend_push = pkt_done;
  assign pend_wdata = new_slot ? '{slot: new_cell, hdr: hdr, mask: lk_mask_i}
                               : '{slot: cur_slot_q, hdr: cur_hdr_q, mask: cur_mask_q};
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
    .rready_i(pend_pop_i),
    .rdata_o(pend_rdata),
    .count_o(pend_count)
  );
  assign pend_slot_o = pend_rdata.slot;
  assign pend_hdr_o = pend_rdata.hdr;
  assign pend_mask_o = pend_rdata.mask;

  // ---------------------------------------------------------------------------
  // Reference counts: a WRED drop and the end of a copy's stream each take
  // one; the last one returns the packet's cells.
  // ---------------------------------------------------------------------------
  logic wred_dec, same_slot;
  logic dec_a, dec_b;  // a: the WRED-dropped copy's slot, b: the finished copy's
  ref_t dec_a_n;
  logic rel_a, rel_b, rel_c;  // a slot whose last reference went; c: a bad-length packet
  assign wred_dec = copy_valid_i && !copy_keep_i;
  assign same_slot = wred_dec && done_i && copy_slot_i == done_slot_i;
  assign dec_a = wred_dec;
  assign dec_b = done_i && !same_slot;
  ref_t ref_a, ref_b;  // their counts now
  assign ref_a = refcnt_q[copy_slot_i];
  assign ref_b = refcnt_q[done_slot_i];
  assign dec_a_n = same_slot ? ref_t'(2) : ref_t'(1);
  assign rel_a = dec_a && ref_a == dec_a_n;
  assign rel_b = dec_b && ref_b == ref_t'(1);
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
  assign rel_head[0] = copy_slot_i;
  assign rel_head[1] = done_slot_i;
  assign rel_head[2] = cur_slot_q;
  assign rel_tail[0] = slot_tail_q[copy_slot_i];
  assign rel_tail[1] = slot_tail_q[done_slot_i];
  assign rel_tail[2] = prev_cell_q;
  for (genvar k = 0; k < 3; k++) begin : gen_rel
    assign rel_n[k] = slot_ncells_q[rel_head[k]];
    assign rel_prio[k] = slot_prio_q[rel_head[k]];
    assign rel_lossy[k] = slot_lossy_q[rel_head[k]];
  end

  // Links written this cycle: the list's tail to the first chain (when the
  // list keeps a cell), each chain's tail to the next.
  logic from_list;  // the cell taken comes from the list (else from the fresh cells)
  logic list_left;  // the list keeps a cell after this cycle's take
  assign from_list = list_q != '0;
  assign list_left = list_q - cnt_t'(take && from_list) != '0;

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
    list_d = list_q - cnt_t'(take && from_list);
    free_d = free_q - cnt_t'(take);
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
    else if (take && from_list) free_head_d = cell_next_q[free_head_q];
    else free_head_d = free_head_q;
    if (take) occ_d[take_prio] = occ_d[take_prio] + cnt_t'(1);
    lossy_d = lossy_q - freed_lossy + cnt_t'(take && (new_slot ? !lossless : lossy_pkt_q));
  end

  // ---------------------------------------------------------------------------
  // VOQs: a pop (egress) and a push (enqueue engine) per cycle, maybe on the
  // same queue
  // ---------------------------------------------------------------------------
  logic push, same_q;
  assign push = copy_valid_i && copy_keep_i;
  assign same_q = pop_i && push && pop_port_i == copy_port_i && pop_q_i == copy_patch_i.prio;

  cell_t pop_head, pop_next;
  len_t pop_head_len;
  cnt_t pop_cnt, push_cnt;
  assign pop_head = vq_head_q[pop_port_i][pop_q_i];
  assign pop_head_len = slot_len_q[pop_head];
  assign pop_next = copy_next_q[pop_head][pop_port_i];
  assign pop_cnt = vq_cnt_q[pop_port_i][pop_q_i];
  assign push_cnt = vq_cnt_q[copy_port_i][copy_patch_i.prio];

  // The new copy follows one still queued (not the one popped now).
  logic link_copy;
  assign link_copy = push && push_cnt > cnt_t'(same_q);

  assign voq_valid_o = vq_any_q;
  assign voq_len_o = vq_hlen_q;
  assign voq_cells_o = vq_cells_q;
  assign pop_slot_o = pop_head;
  assign pop_cell_o = pop_head;  // a slot is its packet's first cell
  assign pop_patch_o = copy_patch_q[pop_head][pop_port_i];
  assign rd_data_o = cell_data_q[rd_cell_i];
  assign rd_next_o = cell_next_q[rd_cell_i];
  assign occ_o = occ_q;

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
      refcnt_q[new_cell] <= ref_t'($countones(lk_mask_i));
    end
    if (take) begin
      slot_ncells_q[rx_slot] <= new_slot ? nflit_t'(1) : slot_ncells_q[cur_slot_q] + nflit_t'(1);
      slot_tail_q[rx_slot] <= new_cell;
    end
    if (dec_a) refcnt_q[copy_slot_i] <= ref_a - dec_a_n;
    if (dec_b) refcnt_q[done_slot_i] <= ref_b - ref_t'(1);
    if (push) copy_patch_q[copy_slot_i][copy_port_i] <= copy_patch_i;
    if (link_copy)
      copy_next_q[vq_tail_q[copy_port_i][copy_patch_i.prio]][copy_port_i] <= copy_slot_i;
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
    end else begin
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
      if (take && !from_list) fresh_q <= fresh_q + cnt_t'(1);
      free_q <= free_d;
      occ_q <= occ_d;
      lossy_q <= lossy_d;
      // Live slots: the new one (unless freed at once), minus the released.
      if (rel_a) slot_used_q[copy_slot_i] <= 1'b0;
      if (rel_b) slot_used_q[done_slot_i] <= 1'b0;
      if (rel_c) slot_used_q[cur_slot_q] <= 1'b0;
      if (new_slot && !bad_free) slot_used_q[new_cell] <= 1'b1;
      used_slots_q <= used_slots_q + cnt_t'(new_slot && !bad_free) -
                      cnt_t'(rel_a) - cnt_t'(rel_b) - cnt_t'(rel_c);
      // VOQ[pop] loses its head, VOQ[push] gains a tail; on the same queue
      // both happen.
      if (pop_i) begin
        vq_head_q[pop_port_i][pop_q_i] <= pop_next;
        vq_hlen_q[pop_port_i][pop_q_i] <= slot_len_q[pop_next];
        vq_any_q[pop_port_i][pop_q_i] <= pop_cnt != cnt_t'(1);
        vq_cnt_q[pop_port_i][pop_q_i] <= pop_cnt - cnt_t'(1);
        vq_cells_q[pop_port_i][pop_q_i] <= vq_cells_q[pop_port_i][pop_q_i] -
                                           cnt_t'(pop_head_len);
      end
      if (push) begin
        vq_tail_q[copy_port_i][copy_patch_i.prio] <= copy_slot_i;
        if (push_cnt - cnt_t'(same_q) == '0) begin
          vq_head_q[copy_port_i][copy_patch_i.prio] <= copy_slot_i;
          vq_hlen_q[copy_port_i][copy_patch_i.prio] <= slot_len_q[copy_slot_i];
        end
        vq_any_q[copy_port_i][copy_patch_i.prio] <= 1'b1;
        vq_cnt_q[copy_port_i][copy_patch_i.prio] <= push_cnt - cnt_t'(same_q) + cnt_t'(1);
        vq_cells_q[copy_port_i][copy_patch_i.prio] <=
            vq_cells_q[copy_port_i][copy_patch_i.prio] -
            (same_q ? cnt_t'(pop_head_len) : '0) + cnt_t'(slot_len_q[copy_slot_i]);
      end
    end
  end

  // ---------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------
  // Nothing is stored without its cells, lossless or not.
  `SF_ASSERT(a_admit_fits, rx_state_q == RxIdle && beat && admit |-> free_fits)
  `SF_ASSERT(a_alloc_has_cell, alloc |-> free_q != '0)
  // A live packet's first cell is never on the free list's head.
  `SF_ASSERT(a_take_free_cell, take |-> !slot_used_q[new_cell])
  `SF_ASSERT(a_free_count, 32'(free_q) == 32'(list_q) + 32'(BufCells) - 32'(fresh_q))
  // Occupancy per arrival priority adds up to the cells not free.
  function automatic int unsigned occ_total(cnt_t [NumPrio-1:0] occ);
    int unsigned sum = 0;
    for (int p = 0; p < NumPrio; p++) sum += 32'(occ[p]);
    return sum;
  endfunction
  // verilog_format: off
  `SF_ASSERT(a_occ_sums_to_used, occ_total(occ_q) == 32'(BufCells) - 32'(free_q))
  // No cell leak: with no live packet and none being received, every cell is free.
  `SF_ASSERT(a_no_cell_leak, used_slots_q == '0 && rx_state_q != RxStore |->
             free_q == cnt_t'(BufCells) && lossy_q == '0)
  `SF_ASSERT(a_lossy_within_used, 32'(lossy_q) + 32'(free_q) <= 32'(BufCells))
  `SF_ASSERT(a_pend_not_full_on_push, pend_push |-> pend_wready)
  `SF_ASSERT(a_pop_nonempty, pop_i |-> vq_cnt_q[pop_port_i][pop_q_i] != '0)
  // What the egress saw of the popped queue is its true head.
  `SF_ASSERT(a_pop_head_seen, pop_i |-> vq_any_q[pop_port_i][pop_q_i] &&
             vq_hlen_q[pop_port_i][pop_q_i] == pop_head_len)
  `SF_ASSERT(a_copy_on_used_slot, copy_valid_i |-> slot_used_q[copy_slot_i])
  `SF_ASSERT(a_done_on_used_slot, done_i |-> slot_used_q[done_slot_i])
  // Reference counts never underflow: a decrement only on a count covering it.
  `SF_ASSERT(a_refcnt_no_underflow_wred, dec_a |-> ref_a >= dec_a_n)
  `SF_ASSERT(a_refcnt_no_underflow_done, dec_b |-> ref_b >= ref_t'(1))
  // A released chain ends at the cell its packet took last.
  `SF_ASSERT(a_release_chain_len, rel_c |-> rel_n[2] == count_q || rel_n[2] == nflit_t'(len_q))
  // verilog_format: on

  logic unused_ingress;
  assign unused_ingress = ^{pend_count, pfc_first};

endmodule
