// One input port of the switch (docs/switch-datapath.md, "Ingress" and the
// VOQ side of "Enqueue"): header checks, admission, the shared cell buffer
// with its packet slots, the virtual output queues VOQ[o][q] of this input,
// the per-arrival-priority occupancy for pfc_tx, and the read port the
// egress streams copies from.
//
// Storage. BufCells cells of one flit. A packet owns a slot (NumSlots =
// BufCells: every packet holds at least one cell, so slots never run out
// before cells). Cells of a packet are chained by cell_next; a cell records
// its slot, so freeing a packet clears all its cells in one cycle. A copy
// of a packet waiting for output o is linked into VOQ[o][q] through
// copy_next[slot][o]; a packet is stored once whatever the number of copies,
// and its slot holds a reference count of the copies not yet gone (sent or
// dropped by WRED).
//
// Timing. The header is checked and admitted in the cycle it is taken
// (the lookup is combinational, from switch_tables); one flit is written per
// cycle; a complete packet goes into a small pending FIFO that the enqueue
// engine (switch_top) drains one copy per cycle. rx_ready_o is low only
// while that FIFO is full.

`include "syncfab_assert.svh"

module switch_ingress #(
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
  input  logic [7:0]                            pfc_en_i,
  input  logic [15:0]                           lossy_limit_i,
  // Receive stream
  input  logic                                  rx_valid_i,
  output logic                                  rx_ready_o,
  input  logic [127:0]                          rx_data_i,
  input  logic                                  rx_last_i,
  // Lookup of the header on rx_data_i (combinational, switch_tables)
  output logic [15:0]                           lk_dst_o,
  input  logic                                  lk_hit_i,
  input  logic [NumPorts-1:0]                   lk_mask_i,
  // Received PFC frame (to pfc_rx of this port)
  output logic                                  pfc_valid_o,
  output logic [7:0]                            pfc_class_o,
  output logic [7:0][15:0]                      pfc_quanta_o,
  // Events (one packet each, at its last flit), with the arrival priority
  output logic                                  ev_rx_o,
  output logic                                  ev_drop_disabled_o,
  output logic                                  ev_drop_bad_o,
  output logic                                  ev_drop_no_route_o,
  output logic                                  ev_drop_buf_o,
  output logic [2:0]                            ev_prio_o,
  // Cells held per arrival priority (including the packet being received)
  output logic [7:0][CntW-1:0]                  occ_o,
  // Pending packet for the enqueue engine (head of the FIFO)
  output logic                                  pend_valid_o,
  output logic [CellW-1:0]                      pend_slot_o,
  output logic [127:0]                          pend_hdr_o,
  output logic [NumPorts-1:0]                   pend_mask_o,
  input  logic                                  pend_pop_i,
  // Enqueue engine: one copy per cycle
  input  logic                                  copy_valid_i,
  input  logic                                  copy_keep_i,  // 0: dropped by WRED
  input  logic [CellW-1:0]                      copy_slot_i,
  input  logic [PortW-1:0]                      copy_port_i,
  input  logic [2:0]                            copy_q_i,
  input  logic [10:0]                           copy_patch_i, // {dscp, ecn, prio} of the copy
  // VOQ heads, per output and egress queue
  output logic [NumPorts-1:0][7:0]              voq_valid_o,
  output logic [NumPorts-1:0][7:0][7:0]         voq_len_o,
  output logic [NumPorts-1:0][7:0][CntW-1:0]    voq_cells_o,
  // Egress takes the head of VOQ[pop_port][pop_q]
  input  logic                                  pop_i,
  input  logic [PortW-1:0]                      pop_port_i,
  input  logic [2:0]                            pop_q_i,
  output logic [CellW-1:0]                      pop_slot_o,   // of VOQ[pop_port_i][pop_q_i]
  output logic [CellW-1:0]                      pop_cell_o,   // its first cell
  output logic [10:0]                           pop_patch_o,
  // Read port (the one output streaming from this input)
  input  logic [CellW-1:0]                      rd_cell_i,
  output logic [127:0]                          rd_data_o,
  output logic [CellW-1:0]                      rd_next_o,
  // A copy streamed from this input has finished (sent or discarded)
  input  logic                                  done_i,
  input  logic [CellW-1:0]                      done_slot_i
);

  import syncfab_fmt_pkg::*;

  `SF_STATIC_ASSERT(gen_buf_cells_check, BufCells >= 2 && BufCells <= 32768)
  `SF_STATIC_ASSERT(gen_num_ports_check, NumPorts >= 1 && NumPorts <= 8)

  localparam int unsigned NumSlots = BufCells;
  typedef logic [CellW-1:0] cell_t;
  typedef logic [CntW-1:0] cnt_t;

  // ---------------------------------------------------------------------------
  // Storage
  // ---------------------------------------------------------------------------
  logic [127:0] cell_data_q [BufCells];
  cell_t        cell_next_q [BufCells];
  cell_t        cell_slot_q [BufCells];
  logic [BufCells-1:0] cell_used_q, cell_used_d;
  cnt_t         free_q, free_d;

  logic [NumSlots-1:0] slot_used_q, slot_used_d;
  logic [NumSlots-1:0][RefW-1:0] refcnt_q, refcnt_d;
  logic [NumSlots-1:0][8:0] slot_ncells_q, slot_ncells_d;
  cell_t        slot_head_q [NumSlots];
  logic [7:0]   slot_len_q [NumSlots];
  logic [2:0]   slot_prio_q [NumSlots];
  logic [NumSlots-1:0] slot_lossy_q;
  cell_t        copy_next_q [NumSlots][NumPorts];
  logic [10:0]  copy_patch_q [NumSlots][NumPorts];

  cnt_t [7:0] occ_q, occ_d;
  cnt_t       lossy_q, lossy_d;

  // VOQs
  cell_t [NumPorts-1:0][7:0] vq_head_q, vq_head_d, vq_tail_q, vq_tail_d;
  cnt_t  [NumPorts-1:0][7:0] vq_cnt_q, vq_cnt_d, vq_cells_q, vq_cells_d;

  // ---------------------------------------------------------------------------
  // Receive state machine
  // ---------------------------------------------------------------------------
  typedef enum logic [1:0] {RxIdle, RxStore, RxDiscard, RxPfc} rx_state_e;
  // DrPfcBad: a malformed PFC frame (more than two flits); DROP_BAD_PKT like
  // DrBad, but a PFC frame is not a packet for RX.
  typedef enum logic [2:0] {
    DrNone, DrDisabled, DrBad, DrNoRoute, DrBuf, DrPfcBad
  } drop_e;

  rx_state_e rx_state_q, rx_state_d;
  drop_e     drop_q, drop_d;        // reason of the packet being discarded
  logic [2:0] prio_q, prio_d;       // arrival priority of the current packet
  cell_t     cur_slot_q, cur_slot_d;
  cell_t     prev_cell_q, prev_cell_d;
  logic [8:0] count_q, count_d;     // flits seen, saturating at len + 1
  logic [7:0] len_q, len_d;
  logic [7:0] pfc_class_q, pfc_class_d;

  pkt_hdr_t hdr;
  assign hdr = pkt_hdr_t'(rx_data_i);
  assign lk_dst_o = hdr.dst_lid;

  logic pend_full, pend_wready, pend_push;
  logic [CellW+128+NumPorts-1:0] pend_wdata, pend_rdata;
  logic [$clog2(PendDepth+1)-1:0] pend_count;
  logic [NumPorts-1:0] cur_mask_q, cur_mask_d;
  logic [127:0] cur_hdr_q, cur_hdr_d;
  assign pend_full = !pend_wready;
  assign rx_ready_o = !pend_full;

  logic beat;
  assign beat = rx_valid_i && rx_ready_o;

  // First free cell and slot (lowest index).
  cell_t free_cell, free_slot;
  logic  any_free_slot;
  always_comb begin
    free_cell = '0;
    for (int c = BufCells - 1; c >= 0; c--) begin
      if (!cell_used_q[c]) free_cell = cell_t'(c);
    end
    free_slot = '0;
    any_free_slot = 1'b0;
    for (int s = NumSlots - 1; s >= 0; s--) begin
      if (!slot_used_q[s]) begin
        free_slot = cell_t'(s);
        any_free_slot = 1'b1;
      end
    end
  end

  logic type_ok, lossless, free_fits, lossy_fits, admit;
  assign type_ok = hdr.pkt_type inside {PKT_DATA, PKT_NOTIFY, PKT_ACK, PKT_NACK, PKT_CNP};
  assign lossless = pfc_en_i[hdr.prio];
  assign free_fits = 32'(free_q) >= 32'(hdr.len_flits);
  assign lossy_fits = (32'(lossy_q) + 32'(hdr.len_flits) <= 32'(lossy_limit_i)) && free_fits;

  logic alloc;          // a flit is written into free_cell this cycle
  logic new_slot;       // a slot is taken this cycle (the header was admitted)
  logic bad_free;       // the current packet is freed (bad length)
  logic pkt_done;       // the current packet is complete and valid

  always_comb begin
    rx_state_d = rx_state_q;
    drop_d = drop_q;
    prio_d = prio_q;
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
    pfc_class_o = pfc_class_q;
    pfc_quanta_o = rx_data_i;

    unique case (rx_state_q)
      RxIdle: if (beat) begin
        prio_d = hdr.prio;
        ev_prio_o = hdr.prio;
        len_d = hdr.len_flits;
        count_d = 9'd1;
        if (hdr.pkt_type == PKT_PFC) begin
          // Link-local: a two-flit frame for pfc_rx, never buffered.
          pfc_class_d = rx_data_i[23:16];
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
          else if (hdr.len_flits == 8'd0) drop_d = DrBad;
          else drop_d = DrNone;
          admit = drop_d == DrNone;
          if (admit) begin
            new_slot = 1'b1;
            alloc = 1'b1;
            cur_slot_d = free_slot;
            prev_cell_d = free_cell;
            cur_mask_d = lk_mask_i;
            cur_hdr_d = rx_data_i;
          end
          if (rx_last_i) begin
            ev_rx_o = 1'b1;
            if (admit) begin
              if (hdr.len_flits == 8'd1) pkt_done = 1'b1;
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
      RxStore: if (beat) begin
        if (count_q < 9'(len_q)) begin
          alloc = 1'b1;
          prev_cell_d = free_cell;
        end
        if (count_q <= 9'(len_q)) count_d = count_q + 9'd1;
        if (rx_last_i) begin
          rx_state_d = RxIdle;
          ev_rx_o = 1'b1;
          if (count_q + 9'd1 == 9'(len_q)) begin
            pkt_done = 1'b1;
          end else begin
            bad_free = 1'b1;
            ev_drop_bad_o = 1'b1;
          end
        end
      end
      RxDiscard: if (beat && rx_last_i) begin
        rx_state_d = RxIdle;
        ev_rx_o = drop_q != DrPfcBad;
        ev_drop_disabled_o = drop_q == DrDisabled;
        ev_drop_bad_o = drop_q == DrBad || drop_q == DrPfcBad;
        ev_drop_no_route_o = drop_q == DrNoRoute;
        ev_drop_buf_o = drop_q == DrBuf;
      end
      // A frame is honoured only with two flits and len_flits 2; any other
      // is DROP_BAD_PKT at its last flit, at the header's prio bits.
      RxPfc: if (beat) begin
        if (rx_last_i) begin
          rx_state_d = RxIdle;
          if (len_q == 8'd2) pfc_valid_o = 1'b1;
          else ev_drop_bad_o = 1'b1;
        end else begin
          drop_d = DrPfcBad;
          rx_state_d = RxDiscard;
        end
      end
      default: rx_state_d = RxIdle;
    endcase
  end

  // ---------------------------------------------------------------------------
  // Pending FIFO: complete packets waiting for the enqueue engine
  // ---------------------------------------------------------------------------
  assign pend_push = pkt_done;
  assign pend_wdata = {new_slot ? free_slot : cur_slot_q,
                       new_slot ? rx_data_i : cur_hdr_q,
                       new_slot ? lk_mask_i : cur_mask_q};
  sync_fifo #(.Width(CellW + 128 + NumPorts), .Depth(PendDepth)) u_pend (
    .clk_i, .rst_ni,
    .wvalid_i(pend_push), .wready_o(pend_wready), .wdata_i(pend_wdata),
    .rvalid_o(pend_valid_o), .rready_i(pend_pop_i), .rdata_o(pend_rdata),
    .count_o(pend_count)
  );
  assign {pend_slot_o, pend_hdr_o, pend_mask_o} = pend_rdata;

  // ---------------------------------------------------------------------------
  // Reference counts and freeing
  // ---------------------------------------------------------------------------
  cell_t rx_slot;  // slot of the flit written this cycle
  assign rx_slot = new_slot ? free_slot : cur_slot_q;

  logic [NumSlots-1:0] free_slot_mask;
  always_comb begin
    slot_used_d = slot_used_q;
    refcnt_d = refcnt_q;
    slot_ncells_d = slot_ncells_q;
    free_slot_mask = '0;
    for (int s = 0; s < NumSlots; s++) begin
      logic [RefW-1:0] dec;
      dec = '0;
      if (copy_valid_i && !copy_keep_i && copy_slot_i == cell_t'(s)) dec = dec + RefW'(1);
      if (done_i && done_slot_i == cell_t'(s)) dec = dec + RefW'(1);
      if (slot_used_q[s] && dec != '0) begin
        refcnt_d[s] = refcnt_q[s] - dec;
        if (refcnt_q[s] == dec) free_slot_mask[s] = 1'b1;
      end
      if (bad_free && cur_slot_q == cell_t'(s) && !new_slot) free_slot_mask[s] = 1'b1;
      if (bad_free && new_slot && free_slot == cell_t'(s)) free_slot_mask[s] = 1'b1;
      if (free_slot_mask[s]) slot_used_d[s] = 1'b0;
      if (alloc && rx_slot == cell_t'(s)) slot_ncells_d[s] = slot_ncells_q[s] + 9'd1;
    end
    if (new_slot) begin
      slot_used_d[free_slot] = !bad_free;
      refcnt_d[free_slot] = RefW'($countones(lk_mask_i));
      slot_ncells_d[free_slot] = 9'd1;
    end
  end

  // Cells: allocated one per written flit, freed with their slot.
  logic [BufCells-1:0] cell_freed;
  cnt_t freed_total;
  cnt_t [7:0] freed_prio;
  cnt_t freed_lossy;
  always_comb begin
    cell_used_d = cell_used_q;
    cell_freed = '0;
    for (int c = 0; c < BufCells; c++) begin
      if (cell_used_q[c] && free_slot_mask[cell_slot_q[c]]) begin
        cell_used_d[c] = 1'b0;
        cell_freed[c] = 1'b1;
      end
    end
    // A cell written by a packet freed in the same cycle (bad length) is
    // never marked used, and it is not counted as allocated either.
    if (alloc && !bad_free) cell_used_d[free_cell] = 1'b1;
    freed_total = '0;
    freed_prio = '0;
    freed_lossy = '0;
    for (int s = 0; s < NumSlots; s++) begin
      if (free_slot_mask[s] && !(bad_free && new_slot && free_slot == cell_t'(s))) begin
        freed_total = freed_total + cnt_t'(slot_ncells_q[s]);
        freed_prio[slot_prio_q[s]] = freed_prio[slot_prio_q[s]] + cnt_t'(slot_ncells_q[s]);
        if (slot_lossy_q[s]) freed_lossy = freed_lossy + cnt_t'(slot_ncells_q[s]);
      end
    end
  end

  logic alloc_lossy;
  assign alloc_lossy = new_slot ? !lossless : slot_lossy_q[cur_slot_q];
  logic [2:0] alloc_prio;
  assign alloc_prio = new_slot ? hdr.prio : prio_q;
  logic alloc_kept;  // the written cell stays (its packet is not freed now)
  assign alloc_kept = alloc && !bad_free;

  always_comb begin
    free_d = free_q - cnt_t'(alloc_kept) + freed_total;
    occ_d = occ_q;
    for (int p = 0; p < 8; p++) begin
      occ_d[p] = occ_q[p] - freed_prio[p];
    end
    if (alloc_kept) occ_d[alloc_prio] = occ_d[alloc_prio] + cnt_t'(1);
    lossy_d = lossy_q - freed_lossy + cnt_t'(alloc_kept && alloc_lossy);
  end
  // ---------------------------------------------------------------------------
  // VOQs
  // ---------------------------------------------------------------------------
  always_comb begin
    vq_head_d = vq_head_q;
    vq_tail_d = vq_tail_q;
    vq_cnt_d = vq_cnt_q;
    vq_cells_d = vq_cells_q;
    if (pop_i) begin
      vq_head_d[pop_port_i][pop_q_i] = copy_next_q[vq_head_q[pop_port_i][pop_q_i]][pop_port_i];
      vq_cnt_d[pop_port_i][pop_q_i] = vq_cnt_q[pop_port_i][pop_q_i] - cnt_t'(1);
      vq_cells_d[pop_port_i][pop_q_i] = vq_cells_q[pop_port_i][pop_q_i] -
          cnt_t'(slot_len_q[vq_head_q[pop_port_i][pop_q_i]]);
    end
    if (copy_valid_i && copy_keep_i) begin
      if (vq_cnt_d[copy_port_i][copy_q_i] == '0) vq_head_d[copy_port_i][copy_q_i] = copy_slot_i;
      vq_tail_d[copy_port_i][copy_q_i] = copy_slot_i;
      vq_cnt_d[copy_port_i][copy_q_i] = vq_cnt_d[copy_port_i][copy_q_i] + cnt_t'(1);
      vq_cells_d[copy_port_i][copy_q_i] = vq_cells_d[copy_port_i][copy_q_i] +
          cnt_t'(slot_len_q[copy_slot_i]);
    end
  end

  logic link_copy;  // the new copy follows an existing one in its VOQ
  assign link_copy = copy_valid_i && copy_keep_i &&
      vq_cnt_q[copy_port_i][copy_q_i] > cnt_t'(pop_i && pop_port_i == copy_port_i && pop_q_i == copy_q_i);

  always_comb begin
    for (int o = 0; o < NumPorts; o++) begin
      for (int q = 0; q < 8; q++) begin
        voq_valid_o[o][q] = vq_cnt_q[o][q] != '0;
        voq_len_o[o][q] = slot_len_q[vq_head_q[o][q]];
        voq_cells_o[o][q] = vq_cells_q[o][q];
      end
    end
  end
  assign pop_slot_o = vq_head_q[pop_port_i][pop_q_i];
  assign pop_cell_o = slot_head_q[pop_slot_o];
  assign pop_patch_o = copy_patch_q[pop_slot_o][pop_port_i];
  assign rd_data_o = cell_data_q[rd_cell_i];
  assign rd_next_o = cell_next_q[rd_cell_i];
  assign occ_o = occ_q;

  // ---------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------
  always_ff @(posedge clk_i) begin
    if (alloc) begin
      cell_data_q[free_cell] <= rx_data_i;
      cell_slot_q[free_cell] <= rx_slot;
    end
    if (alloc && !new_slot) cell_next_q[prev_cell_q] <= free_cell;
    if (new_slot) begin
      slot_head_q[free_slot] <= free_cell;
      slot_len_q[free_slot] <= hdr.len_flits;
      slot_prio_q[free_slot] <= hdr.prio;
    end
    if (copy_valid_i && copy_keep_i) copy_patch_q[copy_slot_i][copy_port_i] <= copy_patch_i;
    if (link_copy) copy_next_q[vq_tail_q[copy_port_i][copy_q_i]][copy_port_i] <= copy_slot_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_state_q <= RxIdle;
      drop_q <= DrNone;
      prio_q <= '0;
      cur_slot_q <= '0;
      prev_cell_q <= '0;
      count_q <= '0;
      len_q <= '0;
      cur_mask_q <= '0;
      cur_hdr_q <= '0;
      pfc_class_q <= '0;
      cell_used_q <= '0;
      free_q <= cnt_t'(BufCells);
      slot_used_q <= '0;
      refcnt_q <= '0;
      slot_ncells_q <= '0;
      slot_lossy_q <= '0;
      occ_q <= '0;
      lossy_q <= '0;
      vq_head_q <= '0;
      vq_tail_q <= '0;
      vq_cnt_q <= '0;
      vq_cells_q <= '0;
    end else begin
      rx_state_q <= rx_state_d;
      drop_q <= drop_d;
      prio_q <= prio_d;
      cur_slot_q <= cur_slot_d;
      prev_cell_q <= prev_cell_d;
      count_q <= count_d;
      len_q <= len_d;
      cur_mask_q <= cur_mask_d;
      cur_hdr_q <= cur_hdr_d;
      pfc_class_q <= pfc_class_d;
      cell_used_q <= cell_used_d;
      free_q <= free_d;
      slot_used_q <= slot_used_d;
      refcnt_q <= refcnt_d;
      slot_ncells_q <= slot_ncells_d;
      if (new_slot) slot_lossy_q[free_slot] <= !lossless;
      occ_q <= occ_d;
      lossy_q <= lossy_d;
      vq_head_q <= vq_head_d;
      vq_tail_q <= vq_tail_d;
      vq_cnt_q <= vq_cnt_d;
      vq_cells_q <= vq_cells_d;
    end
  end

  // ---------------------------------------------------------------------------
  // Assertions
  // ---------------------------------------------------------------------------
  // Nothing is stored without its cells, lossless or not.
  `SF_ASSERT(a_admit_fits, rx_state_q == RxIdle && beat && admit |-> free_fits)
  `SF_ASSERT(a_alloc_has_cell, alloc |-> !cell_used_q[free_cell])
  `SF_ASSERT(a_slot_available, new_slot |-> any_free_slot)
  // No cell leak: free count + used cells = BufCells.
  `SF_ASSERT(a_no_cell_leak, 32'(free_q) + 32'($countones(cell_used_q)) == 32'(BufCells))
  `SF_ASSERT(a_occ_sums_to_used, 32'(occ_q[0]) + 32'(occ_q[1]) + 32'(occ_q[2]) + 32'(occ_q[3]) +
             32'(occ_q[4]) + 32'(occ_q[5]) + 32'(occ_q[6]) + 32'(occ_q[7]) ==
             32'($countones(cell_used_q)))
  `SF_ASSERT(a_pend_not_full_on_push, pend_push |-> pend_wready)
  `SF_ASSERT(a_pop_nonempty, pop_i |-> vq_cnt_q[pop_port_i][pop_q_i] != '0)
  `SF_ASSERT(a_copy_on_used_slot, copy_valid_i |-> slot_used_q[copy_slot_i])
  `SF_ASSERT(a_done_on_used_slot, done_i |-> slot_used_q[done_slot_i])

  for (genvar s = 0; s < NumSlots; s++) begin : gen_slot_rules
    // Refcount never underflows: a decrement only on a live count covering it.
    `SF_ASSERT(a_refcnt_no_underflow,
               slot_used_q[s] |-> 32'(refcnt_q[s]) >=
               32'(copy_valid_i && !copy_keep_i && copy_slot_i == cell_t'(s)) +
               32'(done_i && done_slot_i == cell_t'(s)))
  end

  logic unused_ingress;
  assign unused_ingress = ^{pend_count, pend_full, cell_freed, hdr};

endmodule
