// nic_pkg: parameters and types of the NIC barrier engine (rtl/nic/).
//
// The wire formats (descriptor, packet header, CQ entry) live in the generated
// syncfab_fmt_pkg; this package only adds what the engine's blocks exchange
// among themselves. Protocol: docs/barrier-protocol.md; structure:
// docs/nic/README.md.

package nic_pkg;

  import syncfab_fmt_pkg::*;

  // Contexts implemented (HW_CFG reports it; descriptors with ctx >= this are
  // rejected BAD_CONTEXT and NOTIFYs for them are dropped and ACKed).
  localparam int unsigned NumCtxDefault = 8;
  // Request DAMQ slots shared by every context (docs/barrier-protocol.md §4:
  // `req_damq_entries`).
  localparam int unsigned ReqDamqSlotsDefault = 16;
  // Largest multicast-release group this NIC can be the root of
  // (HW_CFG2.MAX_MEMBERS): the root keeps one arrival tag per member and
  // context (docs/nic/ge.md).
  localparam int unsigned MaxMembersDefault = 256;

  localparam int unsigned RoundW = $clog2(MAX_ROUNDS + 1);  // 0 .. MAX_ROUNDS

  typedef logic [LID_WIDTH-1:0] lid_t;
  typedef logic [EPOCH_WIDTH-1:0] epoch_t;
  typedef logic [RoundW-1:0] nround_t;  // a count of rounds, 0 .. MAX_ROUNDS

  // One bit per (round, slot): the shape of a context's expected-source table.
  typedef logic [MAX_ROUNDS-1:0][K_MAX-1:0] slot_mask_t;
  // The expected source LIDs of every round, as OF hands them to SE.
  typedef lid_t [MAX_ROUNDS-1:0][K_MAX-1:0] src_table_t;

  // Per-context state of SE (the expected-source table is kept beside it, as
  // slot_mask_t / src_table_t arrays). last_* is the epoch of the descriptor
  // that last finished on the context, successfully or not (§4 rule 4).
  typedef struct packed {
    logic    active;
    epoch_t  epoch;
    nround_t num_rounds;
    logic    last_valid;
    epoch_t  last_epoch;
  } ctx_state_t;

  // RFC 1982 serial-number order on 16-bit epochs: a is newer than b when
  // (a - b) mod 2^16 lies in 1 .. 0x7FFF. At distance 0x8000 neither is newer.
  function automatic logic epoch_newer(epoch_t a, epoch_t b);
    epoch_t diff;
    diff = a - b;
    return (diff != '0) && !diff[EPOCH_WIDTH-1];
  endfunction

  // A parked notification: what the request DAMQ stores. The context is the
  // DAMQ queue number, so it is not stored.
  typedef struct packed {
    lid_t       src;
    epoch_t     epoch;
    logic [7:0] round;
  } parked_t;
  localparam int unsigned ParkedW = $bits(parked_t);

  // SE's verdict on one received header (docs/barrier-protocol.md §4). Every
  // header SE takes gets exactly one.
  typedef enum logic [2:0] {
    SE_MATCH = 3'd0,  // active descriptor, same epoch, expected src: marked      (RECV, ACK)
    SE_PARK  = 3'd1,  // parked in the request DAMQ                               (RECV, ACK)
    SE_DUP   = 3'd2,  // already marked, or an identical entry already parked     (DUP,  ACK)
    SE_DROP  = 3'd3,  // stale epoch, unknown context, or src not expected        (DROP, ACK)
    SE_NACK  = 3'd4,  // disabled engine, or DAMQ full and no active match        (NACK_SENT, NACK)
    SE_STRAY = 3'd5   // not a NOTIFY for this node (type, len_flits, dst_lid)    (DROP, none)
  } se_verdict_e;

  // Response to a NOTIFY (docs/barrier-protocol.md §4 last paragraph): the
  // header fields that differ between responses; the rest are constant.
  typedef struct packed {
    logic       nack;   // 0: ACK, 1: NACK
    lid_t       dst;    // the notification's src_lid
    logic [7:0] ctx;
    epoch_t     epoch;
    logic [7:0] round;
  } resp_t;
  localparam int unsigned RespW = $bits(resp_t);

  // Builds the one-flit ACK/NACK header. Only the fields §4 names are set;
  // prio, dscp, ecn and flow_label are 0 (docs/nic/se.md, "ACK/NACK header
  // fields").
  function automatic pkt_hdr_t resp_hdr(resp_t r, lid_t own_lid);
    pkt_hdr_t h;
    h           = '0;
    h.pkt_type  = r.nack ? PktNack : PktAck;
    h.len_flits = 8'd1;
    h.src_lid   = own_lid;
    h.dst_lid   = r.dst;
    h.ctx       = r.ctx;
    h.epoch     = r.epoch;
    h.round     = r.round;
    return h;
  endfunction

  // ---------------------------------------------------------------------------
  // OF (nic_of) and the completion unit (nic_cq): docs/nic/of.md,
  // docs/nic/cq.md.

  // The destination LIDs of every round, as OF hands them to TE (the shape of
  // src_table_t: round r slot k).
  typedef lid_t [MAX_ROUNDS-1:0][K_MAX-1:0] dst_table_t;

  // ---------------------------------------------------------------------------
  // The link (nic_top: rx demux, network arbiter, PFC reception): docs/nic/top.md.

  // One flit of the network stream (the switch's port format): a packet's
  // first flit is its pkt_hdr_t; a PFC frame (pfc_frame_t) is two flits.
  typedef logic [FLIT_BITS-1:0] flit_t;
  typedef logic [PKT_HDR_PRIO_W-1:0] prio_t;  // a priority / traffic class
  typedef logic [NUM_PRIO-1:0] prio_mask_t;  // one bit per priority
  typedef logic [NUM_PRIO-1:0][PFC_FRAME_QUANTA_W-1:0] pfc_quanta_t;  // a frame's quanta

  // Memory port (DMA) of OF (reads) and of the completion unit (writes). One
  // request is one 64-bit word at a byte address (8-byte aligned: a memory may
  // answer an unaligned address with err). Requests are valid/ready; every
  // request gets exactly one response, in request order; the response channel
  // is valid/ready too, and both requesters keep their rsp_ready high.
  //   read:  req {addr}        -> rsp {data, err}
  //   write: req {addr, data}  -> rsp {err}   (all 8 bytes, little-endian)
  // err = the memory refused the access (§2 "refuses", §7 step 1).
  typedef logic [63:0] mem_addr_t;
  typedef logic [63:0] mem_data_t;
  // 64-bit words of one descriptor (352 bytes) and of one CQ entry (16 bytes).
  localparam int unsigned DescWords = BARRIER_DESC_BYTES / 8;
  localparam int unsigned CqEntryWords = CQ_ENTRY_BYTES / 8;

  // What the completion unit needs from a descriptor beyond TE's record: its
  // flags and completion write. OF hands it over when it activates the
  // descriptor; the completion unit keeps it per context.
  typedef struct packed {
    logic        flag_cmpl_write;
    logic        flag_cq_entry;
    logic        flag_irq;
    logic [63:0] cmpl_addr;
    logic [63:0] cmpl_value;
  } cmpl_info_t;

  // A group descriptor (MCAST_BARRIER, COMB_BARRIER) as OF hands it to the
  // group engine (docs/group-barrier.md, docs/nic/ge.md); ctx and epoch
  // travel beside it on OF's shared activation ports.
  typedef struct packed {
    logic        comb;     // 1: COMB_BARRIER, 0: MCAST_BARRIER
    lid_t        mlid;
    lid_t        root_lid;
    logic [15:0] member;
    logic [15:0] members;
  } group_act_t;

  // A completion record (TE's done port, OF's error port): the CQ entry's
  // fields. ctx is the descriptor's raw 8-bit field (§7: even for BAD_CONTEXT).
  typedef struct packed {
    logic [CTX_WIDTH-1:0] ctx;
    epoch_t               epoch;
    cq_status_e           status;
    err_code_e            err_code;
  } cq_rec_t;

endpackage : nic_pkg
