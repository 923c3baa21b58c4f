// nic_top: the NIC, its barrier engine and its data path (docs/nic/top.md;
// overview docs/nic/README.md; the data path docs/nic/dcqcn.md).
//
// Joins the CSR block (nic_csr), OF (nic_of: HDQ, SDQ fetch, validation,
// activation), SE (nic_se: receive side + request DAMQ), TE (nic_te: sends,
// ACK/NACK matching, retry), the group engine (nic_ge: the group barriers of
// docs/group-barrier.md), the completion unit (nic_cq) and the data path
// (nic_dcqcn: bulk sender, DCQCN reaction and notification points, with its
// own register block at DCQCN_CSR_BASE), and adds what belongs to none of
// them:
//   - the CSR window's decode: paddr_i's top bit picks the barrier engine's
//     block or the data path's;
//   - the rx demux on the link's flit stream: a one-flit NOTIFY -> SE, a
//     one-flit ACK/NACK -> TE, a one-flit ARRIVE, RELEASE or COMB_RELEASE ->
//     the group engine, DATA (every flit) and a one-flit CNP -> the data
//     path, a PFC frame -> pfc_rx (if well formed), every
//     other packet consumed flit by flit and dropped, counted CNT_DROP once at
//     its last flit (trace net.drop). SE and TE apply the len_flits / dst_lid
//     checks of §4 rule 1 themselves;
//   - PFC reception: the switch's pfc_rx (rtl/switch/pfc_rx.sv), whose stop
//     on NET_CFG.TC holds the network arbiter (STATUS.TX_PAUSED);
//   - the network arbiter: the data path's CNPs first, then SE's responses,
//     TE's NOTIFYs, the group engine's sends and the mailbox's MGMT packets
//     (round-robin when several wait, §6, each with prio = NET_CFG.TC; while
//     that is paused none of them is presented), then the data path's DATA
//     packets, onto one tx stream, never interleaving a packet's flits;
//   - the memory-access arbiter: OF's reads and the completion unit's writes
//     onto one memory port, round-robin, responses routed back by a FIFO of
//     request kinds (the memory answers in request order);
//   - the record merge: TE's and the group engine's completion records onto
//     the completion unit's record port, round-robin;
//   - counter increments, STATUS, HW_CFG, HW_CFG2, interrupt causes.
// Instances are named after the §9 trace blocks (of, se, te, cq), so that
// te.send, se.evt_recv_o, ... are the names the model's trace uses.

`include "syncfab_assert.svh"
`include "nic_assert.svh"

module nic_top
  import syncfab_fmt_pkg::*;
  import nic_pkg::*;
  import nic_csr_reg_pkg::*;
#(
  parameter int unsigned NumCtx        = NumCtxDefault,
  parameter int unsigned ReqDamqSlots  = ReqDamqSlotsDefault,
  // 2 is enough: TE's matcher never lets the response DAMQ hold more than one
  // entry (docs/nic/te.md, "Response DAMQ size").
  parameter int unsigned RespDamqSlots = 2,
  parameter int unsigned HdqDepth      = 2,
  parameter int unsigned RecDepth      = 2,   // completion unit's record FIFO
  parameter int unsigned MemOutstanding = 8,  // memory requests in flight
  // Largest multicast-release group this NIC can be the root of
  // (HW_CFG2.MAX_MEMBERS; docs/nic/ge.md).
  parameter int unsigned MaxMembers    = MaxMembersDefault,
  // Datagrams the management mailbox's receive FIFO holds (HW_CFG2.MBOX_DEPTH;
  // docs/nic/mbox.md).
  parameter int unsigned MboxDepth     = 4,
  // The CSR window: the barrier engine's block at 0, the data path's at
  // DCQCN_CSR_BASE (docs/nic/dcqcn.md §1).
  localparam int unsigned AddrW = $clog2(DCQCN_CSR_BASE) + 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,

  // APB4 completer (CSRs).
  input  logic              psel_i,
  input  logic              penable_i,
  input  logic              pwrite_i,
  input  logic [2:0]        pprot_i,
  input  logic [AddrW-1:0]  paddr_i,
  input  logic [31:0]       pwdata_i,
  input  logic [3:0]        pstrb_i,
  output logic [31:0]       prdata_o,
  output logic              pready_o,
  output logic              pslverr_o,
  output logic              intr_o,

  // Network: the link, one flit per cycle, `last` on a packet's final flit
  // (docs/nic/top.md "Interface"). Every packet sent is one flit except the
  // mailbox's MGMT packets (MGMT_FLITS flits) and the data path's DATA
  // packets (len_flits flits), never interleaved.
  input  logic              rx_valid_i,
  output logic              rx_ready_o,
  input  flit_t             rx_data_i,
  input  logic              rx_last_i,
  output logic              tx_valid_o,
  input  logic              tx_ready_i,
  output flit_t             tx_data_o,
  output logic              tx_last_o,

  // Memory port (nic_pkg): one 64-bit word per request, one response per
  // request, in request order, at the earliest the cycle after the request.
  output logic              mem_req_valid_o,
  input  logic              mem_req_ready_i,
  output logic              mem_req_write_o,  // 1: write mem_req_data_o
  output mem_addr_t         mem_req_addr_o,
  output mem_data_t         mem_req_data_o,
  input  logic              mem_rsp_valid_i,
  output logic              mem_rsp_ready_o,
  input  mem_data_t         mem_rsp_data_i,   // reads only
  input  logic              mem_rsp_err_i     // the memory refused the access
);

  localparam int unsigned CtxIdxW = (NumCtx > 1) ? $clog2(NumCtx) : 1;
  localparam int unsigned DamqCntW = $clog2(ReqDamqSlots + 1);
  localparam int unsigned RespCntW = $clog2(RespDamqSlots + 1);

  `SF_STATIC_ASSERT(gen_num_ctx_check, NumCtx >= 1 && NumCtx <= 255)
  `SF_STATIC_ASSERT(gen_hdq_depth_check, HdqDepth >= 1 && HdqDepth <= 255)
  `SF_STATIC_ASSERT(gen_resp_damq_check, RespDamqSlots >= 2)
  `SF_STATIC_ASSERT(gen_mem_outstanding_check, MemOutstanding >= 1)
  // A PFC frame is two flits; a header is one.
  `SF_STATIC_ASSERT(gen_pfc_frame_check, PFC_FRAME_BITS == 2 * FLIT_BITS)
  `SF_STATIC_ASSERT(gen_pkt_hdr_check, PKT_HDR_BITS == FLIT_BITS)
  // Each block decodes the low bits of the window, the top bit picks the block.
  localparam int unsigned DpAddrW = nic_dcqcn_reg_pkg::NIC_DCQCN_REG_TOP_MIN_ADDR_WIDTH;
  `SF_STATIC_ASSERT(gen_csr_window_check,
                    NIC_CSR_REG_TOP_MIN_ADDR_WIDTH == AddrW - 1 && DpAddrW == AddrW - 1)
  `SF_STATIC_ASSERT(gen_dp_base_check, DCQCN_CSR_BASE == (1 << (AddrW - 1)))

  // =========================================================================
  // CSR window: paddr_i[AddrW-1] picks the block (APB holds PADDR for the
  // whole transfer, so the answer comes from the block the setup phase chose)
  // =========================================================================
  logic csr_psel, csr_penable, csr_pready, csr_pslverr;
  logic dp_psel, dp_penable, dp_pready, dp_pslverr, dp_sel;
  logic [31:0] csr_prdata, dp_prdata;
  assign dp_sel    = paddr_i[AddrW-1];
  assign csr_psel    = psel_i && !dp_sel;
  assign dp_psel     = psel_i && dp_sel;
  // Each block sees PENABLE of its own transfers only (its APB checker
  // holds PENABLE to PSEL).
  assign csr_penable = penable_i && !dp_sel;
  assign dp_penable  = penable_i && dp_sel;
  assign prdata_o  = dp_sel ? dp_prdata : csr_prdata;
  assign pready_o  = dp_sel ? dp_pready : csr_pready;
  assign pslverr_o = dp_sel ? dp_pslverr : csr_pslverr;

  // =========================================================================
  // CSR block
  // =========================================================================
  nic_csr__in_t              hwif_in;
  nic_csr__out_t             hwif_out;
  logic [HDQ_WORDS-1:0][31:0] hdq_window;

  nic_csr u_csr (
    .clk_i,
    .rst_ni,
    .psel_i      (csr_psel),
    .penable_i   (csr_penable),
    .pwrite_i,
    .pprot_i,
    .paddr_i     (paddr_i[AddrW-2:0]),
    .pwdata_i,
    .pstrb_i,
    .prdata_o    (csr_prdata),
    .pready_o    (csr_pready),
    .pslverr_o   (csr_pslverr),
    .hwif_i      (hwif_in),
    .hwif_o      (hwif_out),
    .hdq_window_o(hdq_window),
    .intr_o
  );

  logic enable, soft_reset;
  lid_t own_lid;
  prio_t tc;  // NET_CFG.TC: the priority of every packet sent
  logic [NumCtx-1:0] ctx_busy;  // a context runs a descriptor of SE/TE or of the group engine
  assign enable     = hwif_out.CTRL.ENABLE.value;
  assign soft_reset = hwif_out.CTRL.SOFT_RESET.value;
  assign own_lid    = hwif_out.NODE_LID.LID.value;
  assign tc         = hwif_out.NET_CFG.TC.value;

  // The link registers' fields are as wide as the formats they feed.
  localparam int unsigned PfcCpqW = $bits(hwif_out.PFC_CFG.CYC_PER_QUANTUM.value);
  `SF_STATIC_ASSERT(gen_tc_width_check, $bits(hwif_out.NET_CFG.TC.value) == PKT_HDR_PRIO_W)
  `SF_STATIC_ASSERT(gen_pfc_enable_width_check, $bits(hwif_out.PFC_CFG.ENABLE.value) == NUM_PRIO)

  // =========================================================================
  // Blocks
  // =========================================================================
  // OF
  logic rd_req_valid, rd_req_ready, rd_rsp_valid, rd_rsp_ready;
  mem_addr_t rd_req_addr;
  logic act_se_valid, act_se_ready, act_te_valid, act_te_ready, act_fire;
  logic act_ge_valid, act_ge_ready;
  group_act_t            act_group;
  logic [CtxIdxW-1:0]    act_ctx;
  epoch_t                act_epoch;
  nround_t               act_num_rounds;
  logic [7:0]            act_fanout;
  src_table_t            act_src;
  dst_table_t            act_dst;
  cmpl_info_t            act_info;
  logic of_err_valid, of_err_ready;
  cq_rec_t               of_err_rec;
  logic [7:0]            hdq_level;
  logic                  hdq_full;
  logic [15:0]           sdq_cons;
  logic of_intr_hdq_overflow, of_intr_dma_error;
  logic of_hdq_post, of_fetch, of_activate, of_reject, of_busy;
  barrier_desc_t hdq_desc;

  // rx demux (the header on rx goes to SE and TE as it is)
  pkt_hdr_t rx_hdr;
  assign rx_hdr = pkt_hdr_t'(rx_data_i);

  // SE
  logic se_rx_valid, se_rx_ready;
  logic se_resp_valid, se_resp_ready;
  pkt_hdr_t se_resp_hdr;
  logic [NumCtx-1:0] ctx_active, all_recv;
  nround_t [NumCtx-1:0] rounds_heard;
  logic se_evt_rx, se_evt_recv, se_evt_dup, se_evt_drop, se_evt_nack;
  se_verdict_e se_verdict;
  logic se_drain_busy, se_flush_busy;
  logic [DamqCntW-1:0]   se_damq_free;

  // TE
  logic                  fin_valid;
  logic [CtxIdxW-1:0]    fin_ctx;
  logic te_tx_valid, te_tx_ready;
  pkt_hdr_t te_tx_hdr;
  logic te_resp_valid, te_resp_ready;
  logic te_done_valid, te_done_ready;
  cq_rec_t te_done_rec;
  logic te_evt_sent, te_evt_retry, te_evt_ack, te_evt_nack, te_evt_drop;
  logic te_evt_stray, te_evt_error, te_busy;
  logic [RespCntW-1:0] te_resp_damq_free;

  // Group engine
  logic ge_rx_valid, ge_rx_ready;
  logic ge_tx_valid, ge_tx_ready;
  pkt_hdr_t ge_tx_hdr;
  logic ge_done_valid, ge_done_ready;
  cq_rec_t ge_done_rec;
  logic [NumCtx-1:0] ge_ctx_active;
  logic ge_evt_arrive_sent, ge_evt_arrive_recv, ge_evt_release_sent, ge_evt_release_recv;
  logic ge_evt_retry, ge_evt_dup, ge_evt_drop, ge_busy;

  // Management mailbox
  logic mb_tx_valid, mb_tx_ready, mb_tx_last, mb_tx_started, mb_tx_busy;
  flit_t mb_tx_data;
  logic mb_rx_valid, mb_rx_first;
  logic [7:0][31:0] mb_tx_words, mb_rx_words;
  lid_t mb_rx_src;
  logic [7:0] mb_rx_level;
  logic mb_evt_sent, mb_evt_recv, mb_evt_drop;

  // Record merge (TE and the group engine onto the completion unit's port)
  logic rec_valid, rec_ready, rec_idx;
  logic [1:0] rec_src_ready, rec_gnt_unused;
  cq_rec_t rec;

  // Completion unit
  logic wr_req_valid, wr_req_ready, wr_rsp_valid, wr_rsp_ready;
  mem_addr_t             wr_req_addr;
  mem_data_t             wr_req_data;
  logic [15:0]           cq_head;
  logic                  cq_phase;
  logic cq_intr_done, cq_intr_error, cq_intr_dma_error;
  logic cq_evt_completion, cq_evt_error, cq_stall, cq_busy;
  cq_rec_t cq_done_rec;

  // The window's words 0..87 are the descriptor (word 0 = bits 31:0).
  assign hdq_desc = barrier_desc_t'(hdq_window[DescWords*2-1:0]);

  nic_of #(
    .NumCtx    (NumCtx),
    .HdqDepth  (HdqDepth),
    .MaxMembers(MaxMembers)
  ) of (
    .clk_i,
    .rst_ni,
    .enable_i           (enable),
    .soft_reset_i       (soft_reset),
    .hdq_post_i         (hwif_out.HDQ_POST.POST.value),
    .hdq_desc_i         (hdq_desc),
    .hdq_level_o        (hdq_level),
    .hdq_full_o         (hdq_full),
    .sdq_base_i         ({hwif_out.SDQ_BASE_HI.ADDR.value, hwif_out.SDQ_BASE_LO.ADDR.value}),
    .sdq_size_i         (hwif_out.SDQ_SIZE.ENTRIES.value),
    .sdq_prod_i         (hwif_out.SDQ_PROD.INDEX.value),
    .sdq_cons_o         (sdq_cons),
    .rd_req_valid_o     (rd_req_valid),
    .rd_req_ready_i     (rd_req_ready),
    .rd_req_addr_o      (rd_req_addr),
    .rd_rsp_valid_i     (rd_rsp_valid),
    .rd_rsp_ready_o     (rd_rsp_ready),
    .rd_rsp_data_i      (mem_rsp_data_i),
    .rd_rsp_err_i       (mem_rsp_err_i),
    .ctx_active_i       (ctx_busy),
    .act_se_valid_o     (act_se_valid),
    .act_se_ready_i     (act_se_ready),
    .act_te_valid_o     (act_te_valid),
    .act_te_ready_i     (act_te_ready),
    .act_ge_valid_o     (act_ge_valid),
    .act_ge_ready_i     (act_ge_ready),
    .act_fire_o         (act_fire),
    .act_ctx_o          (act_ctx),
    .act_epoch_o        (act_epoch),
    .act_num_rounds_o   (act_num_rounds),
    .act_fanout_o       (act_fanout),
    .act_src_o          (act_src),
    .act_dst_o          (act_dst),
    .act_info_o         (act_info),
    .act_group_o        (act_group),
    .err_valid_o        (of_err_valid),
    .err_ready_i        (of_err_ready),
    .err_rec_o          (of_err_rec),
    .intr_hdq_overflow_o(of_intr_hdq_overflow),
    .intr_dma_error_o   (of_intr_dma_error),
    .evt_hdq_post_o     (of_hdq_post),
    .evt_fetch_o        (of_fetch),
    .evt_activate_o     (of_activate),
    .evt_reject_o       (of_reject),
    .busy_o             (of_busy)
  );

  nic_se #(
    .NumCtx      (NumCtx),
    .ReqDamqSlots(ReqDamqSlots)
  ) se (
    .clk_i,
    .rst_ni,
    .own_lid_i       (own_lid),
    .enable_i        (enable),
    .soft_reset_i    (soft_reset),
    .rx_valid_i      (se_rx_valid),
    .rx_ready_o      (se_rx_ready),
    .rx_hdr_i        (rx_hdr),
    .act_valid_i     (act_se_valid),
    .act_ready_o     (act_se_ready),
    .act_ctx_i       (act_ctx),
    .act_epoch_i     (act_epoch),
    .act_num_rounds_i(act_num_rounds),
    .act_fanout_i    (act_fanout),
    .act_src_i       (act_src),
    .fin_valid_i     (fin_valid),
    .fin_ctx_i       (fin_ctx),
    .resp_valid_o    (se_resp_valid),
    .resp_ready_i    (se_resp_ready),
    .resp_hdr_o      (se_resp_hdr),
    .ctx_active_o    (ctx_active),
    .rounds_heard_o  (rounds_heard),
    .all_recv_o      (all_recv),
    .evt_rx_o        (se_evt_rx),
    .evt_recv_o      (se_evt_recv),
    .evt_dup_o       (se_evt_dup),
    .evt_drop_o      (se_evt_drop),
    .evt_nack_o      (se_evt_nack),
    .rx_verdict_o    (se_verdict),
    .drain_busy_o    (se_drain_busy),
    .flush_busy_o    (se_flush_busy),
    .damq_free_o     (se_damq_free)
  );

  nic_te #(
    .NumCtx       (NumCtx),
    .RespDamqSlots(RespDamqSlots)
  ) te (
    .clk_i,
    .rst_ni,
    .own_lid_i       (own_lid),
    .retry_delay_i   (hwif_out.RETRY_DELAY.CYCLES.value),
    .retry_limit_i   (hwif_out.RETRY_LIMIT.LIMIT.value),
    .soft_reset_i    (soft_reset),
    .act_valid_i     (act_te_valid),
    .act_ready_o     (act_te_ready),
    .act_ctx_i       (act_ctx),
    .act_epoch_i     (act_epoch),
    .act_num_rounds_i(act_num_rounds),
    .act_fanout_i    (act_fanout),
    .act_dst_i       (act_dst),
    .ctx_active_i    (ctx_active),
    .rounds_heard_i  (rounds_heard),
    .all_recv_i      (all_recv),
    .fin_valid_o     (fin_valid),
    .fin_ctx_o       (fin_ctx),
    .tx_valid_o      (te_tx_valid),
    .tx_ready_i      (te_tx_ready),
    .tx_hdr_o        (te_tx_hdr),
    .resp_rx_valid_i (te_resp_valid),
    .resp_rx_ready_o (te_resp_ready),
    .resp_rx_hdr_i   (rx_hdr),
    .done_valid_o    (te_done_valid),
    .done_ready_i    (te_done_ready),
    .done_rec_o      (te_done_rec),
    .evt_notif_sent_o(te_evt_sent),
    .evt_retry_o     (te_evt_retry),
    .evt_ack_recv_o  (te_evt_ack),
    .evt_nack_recv_o (te_evt_nack),
    .evt_drop_o      (te_evt_drop),
    .evt_stray_o     (te_evt_stray),
    .evt_error_o     (te_evt_error),
    .busy_o          (te_busy),
    .resp_damq_free_o(te_resp_damq_free)
  );

  nic_ge #(
    .NumCtx    (NumCtx),
    .MaxMembers(MaxMembers)
  ) ge (
    .clk_i,
    .rst_ni,
    .own_lid_i          (own_lid),
    .enable_i           (enable),
    .soft_reset_i       (soft_reset),
    .group_timeout_i    (hwif_out.GROUP_TIMEOUT.CYCLES.value),
    .group_retry_limit_i(hwif_out.GROUP_RETRY_LIMIT.LIMIT.value),
    .act_valid_i        (act_ge_valid),
    .act_ready_o        (act_ge_ready),
    .act_ctx_i          (act_ctx),
    .act_epoch_i        (act_epoch),
    .act_group_i        (act_group),
    .rx_valid_i         (ge_rx_valid),
    .rx_ready_o         (ge_rx_ready),
    .rx_hdr_i           (rx_hdr),
    .tx_valid_o         (ge_tx_valid),
    .tx_ready_i         (ge_tx_ready),
    .tx_hdr_o           (ge_tx_hdr),
    .done_valid_o       (ge_done_valid),
    .done_ready_i       (ge_done_ready),
    .done_rec_o         (ge_done_rec),
    .ctx_active_o       (ge_ctx_active),
    .evt_arrive_sent_o  (ge_evt_arrive_sent),
    .evt_arrive_recv_o  (ge_evt_arrive_recv),
    .evt_release_sent_o (ge_evt_release_sent),
    .evt_release_recv_o (ge_evt_release_recv),
    .evt_group_retry_o  (ge_evt_retry),
    .evt_dup_o          (ge_evt_dup),
    .evt_drop_o         (ge_evt_drop),
    .busy_o             (ge_busy)
  );

  // The mailbox runs whatever CTRL.ENABLE (docs/group-protocol.md §1).
  assign mb_tx_words = {
    hwif_out.MBOX_TX_DATA7.WORD.value,
    hwif_out.MBOX_TX_DATA6.WORD.value,
    hwif_out.MBOX_TX_DATA5.WORD.value,
    hwif_out.MBOX_TX_DATA4.WORD.value,
    hwif_out.MBOX_TX_DATA3.WORD.value,
    hwif_out.MBOX_TX_DATA2.WORD.value,
    hwif_out.MBOX_TX_DATA1.WORD.value,
    hwif_out.MBOX_TX_DATA0.WORD.value
  };

  nic_mbox #(
    .MboxDepth(MboxDepth)
  ) mbox (
    .clk_i,
    .rst_ni,
    .own_lid_i      (own_lid),
    .tc_i           (tc),
    .soft_reset_i   (soft_reset),
    .send_i         (hwif_out.MBOX_TX_CTRL.SEND.value),
    .dst_lid_i      (hwif_out.MBOX_TX_CTRL.DST_LID.value),
    .tx_words_i     (mb_tx_words),
    .tx_busy_o      (mb_tx_busy),
    .tx_valid_o     (mb_tx_valid),
    .tx_ready_i     (mb_tx_ready),
    .tx_data_o      (mb_tx_data),
    .tx_last_o      (mb_tx_last),
    .tx_started_o   (mb_tx_started),
    .rx_valid_i     (mb_rx_valid),
    .rx_first_i     (mb_rx_first),
    .rx_last_i      (rx_last_i),
    .rx_data_i      (rx_data_i),
    .pop_i          (hwif_out.MBOX_RX_POP.POP.value),
    .rx_head_words_o(mb_rx_words),
    .rx_head_src_o  (mb_rx_src),
    .rx_level_o     (mb_rx_level),
    .evt_sent_o     (mb_evt_sent),
    .evt_recv_o     (mb_evt_recv),
    .evt_drop_o     (mb_evt_drop)
  );

  // SE/TE and the group engine never run the same context (OF activates an
  // idle one only), so CTX_BUSY and STATUS.ACTIVE_CTX read the union.
  assign ctx_busy = ctx_active | ge_ctx_active;

  // Records of TE and of the group engine: one port of the completion unit,
  // round-robin, a record shown stays until taken (a soft reset withdraws
  // both, and empties the completion unit in the same cycle).
  stream_arbiter #(
    .NumReq(2)
  ) u_rec_arb (
    .clk_i,
    .rst_ni,
    .valid_i({ge_done_valid, te_done_valid}),
    .ready_o(rec_src_ready),
    .valid_o(rec_valid),
    .ready_i(rec_ready),
    .gnt_o  (rec_gnt_unused),
    .idx_o  (rec_idx)
  );
  assign rec           = rec_idx ? ge_done_rec : te_done_rec;
  assign te_done_ready = rec_src_ready[0];
  assign ge_done_ready = rec_src_ready[1];

  nic_cq #(
    .NumCtx  (NumCtx),
    .RecDepth(RecDepth)
  ) cq (
    .clk_i,
    .rst_ni,
    .soft_reset_i    (soft_reset),
    .cq_base_i       ({hwif_out.CQ_BASE_HI.ADDR.value, hwif_out.CQ_BASE_LO.ADDR.value}),
    .cq_size_i       (hwif_out.CQ_SIZE.ENTRIES.value),
    .cq_tail_i       (hwif_out.CQ_TAIL.INDEX.value),
    .cq_head_o       (cq_head),
    .cq_phase_o      (cq_phase),
    .info_valid_i    (act_fire),
    .info_ctx_i      (act_ctx),
    .info_i          (act_info),
    .te_valid_i      (rec_valid),
    .te_ready_o      (rec_ready),
    .te_rec_i        (rec),
    .of_valid_i      (of_err_valid),
    .of_ready_o      (of_err_ready),
    .of_rec_i        (of_err_rec),
    .wr_req_valid_o  (wr_req_valid),
    .wr_req_ready_i  (wr_req_ready),
    .wr_req_addr_o   (wr_req_addr),
    .wr_req_data_o   (wr_req_data),
    .wr_rsp_valid_i  (wr_rsp_valid),
    .wr_rsp_ready_o  (wr_rsp_ready),
    .wr_rsp_err_i    (mem_rsp_err_i),
    .intr_done_o     (cq_intr_done),
    .intr_error_o    (cq_intr_error),
    .intr_dma_error_o(cq_intr_dma_error),
    .evt_completion_o(cq_evt_completion),
    .evt_error_o     (cq_evt_error),
    .done_rec_o      (cq_done_rec),
    .cq_stall_o      (cq_stall),
    .busy_o          (cq_busy)
  );

  // =========================================================================
  // Data path (docs/nic/dcqcn.md): bulk sender, reaction and notification
  // points, with its own register block at DCQCN_CSR_BASE
  // =========================================================================
  logic dp_rx_data_valid, dp_rx_cnp_valid;
  logic dp_cnp_valid, dp_cnp_paused, dp_cnp_ready;
  logic cnp_go;  // the data path's CNP is on tx (network arbiter)
  pkt_hdr_t dp_cnp_hdr;
  logic dp_data_allow, dp_data_busy, dp_data_valid, dp_data_ready, dp_data_last;
  flit_t dp_data;

  // =========================================================================
  // rx demux
  // =========================================================================
  // The demux reads a packet's first flit and consumes the rest after it. It
  // keeps where it is in the stream: RxHead (the next flit is a first flit),
  // RxPfc (a PFC frame's first flit was taken) or RxDrop (inside a packet
  // that is dropped, or a PFC frame that turned out malformed). A soft reset
  // leaves it alone: the link does not restart with the engine.
  typedef enum logic [2:0] {
    RxHead,
    RxPfc,
    RxDrop,
    RxMgmt,  // inside a MGMT packet: every flit to the mailbox
    RxData   // inside a DATA packet: every flit to the data path
  } rx_state_e;

  rx_state_e rx_state_q, rx_state_d;
  prio_mask_t pfc_class_q;   // the PFC frame's class_enable (first flit)
  logic       pfc_len_ok_q;  // its len_flits is 2 (first flit)

  // The flit on rx read as a PFC frame's first and as its second flit.
  pfc_frame_t rx_pfc_head, rx_pfc_tail;
  assign rx_pfc_head = pfc_frame_t'({{(PFC_FRAME_BITS - FLIT_BITS) {1'b0}}, rx_data_i});
  assign rx_pfc_tail = pfc_frame_t'({rx_data_i, {(PFC_FRAME_BITS - FLIT_BITS) {1'b0}}});

  logic rx_head, rx_is_notify, rx_is_resp, rx_is_group, rx_is_mgmt, rx_fire, net_drop, pfc_valid;
  logic rx_is_data, rx_is_cnp;

  assign rx_head       = rx_state_q == RxHead;
  // Only a one-flit NOTIFY or ACK/NACK is the engine's: SE or TE take it.
  assign rx_is_notify  = rx_head && rx_last_i && rx_hdr.pkt_type == PktNotify;
  assign rx_is_resp    = rx_head && rx_last_i &&
                         (rx_hdr.pkt_type == PktAck || rx_hdr.pkt_type == PktNack);
  // The group engine's: a one-flit ARRIVE, RELEASE or COMB_RELEASE, whatever
  // its dst_lid (a release may be multicast; the engine judges dst_lid). A
  // COMB_ARRIVE is for switches: dropped here like an unknown type
  // (docs/group-barrier.md §6).
  assign rx_is_group   = rx_head && rx_last_i &&
                         (rx_hdr.pkt_type == PktArrive || rx_hdr.pkt_type == PktRelease ||
                          rx_hdr.pkt_type == PktCombRelease);
  // A MGMT packet of any length, flit by flit, to the mailbox, which judges
  // it at its last flit (docs/nic/mbox.md).
  assign rx_is_mgmt    = (rx_head && rx_hdr.pkt_type == PktMgmt) || rx_state_q == RxMgmt;
  // The data path's: a DATA packet of any length, flit by flit (it judges it
  // at its last flit), and a one-flit CNP. A CNP of more flits is dropped
  // here (CNT_DROP), as any packet nobody takes.
  assign rx_is_data    = (rx_head && rx_hdr.pkt_type == PktData) || rx_state_q == RxData;
  assign rx_is_cnp     = rx_head && rx_last_i && rx_hdr.pkt_type == PktCnp;
  assign dp_rx_data_valid = rx_valid_i && rx_is_data;
  assign dp_rx_cnp_valid  = rx_valid_i && rx_is_cnp;
  assign mb_rx_valid   = rx_valid_i && rx_is_mgmt;
  assign mb_rx_first   = rx_head;
  assign se_rx_valid   = rx_valid_i && rx_is_notify;
  assign te_resp_valid = rx_valid_i && rx_is_resp;
  assign ge_rx_valid   = rx_valid_i && rx_is_group;
  // Every other flit is taken at once: the data path's, PFC frames and
  // dropped packets.
  assign rx_ready_o    = rx_is_notify ? se_rx_ready :
                         rx_is_resp   ? te_resp_ready :
                         rx_is_group  ? ge_rx_ready : 1'b1;
  assign rx_fire       = rx_valid_i && rx_ready_o;

  // net_drop: a packet that is not the engine's, or a malformed PFC frame,
  // ends this cycle (CNT_DROP, once per packet). pfc_valid: a well-formed PFC
  // frame (two flits, len_flits 2) ends this cycle.
  always_comb begin
    rx_state_d = rx_state_q;
    net_drop   = 1'b0;
    pfc_valid  = 1'b0;
    if (rx_fire) begin
      unique case (rx_state_q)
        RxHead: begin
          if (rx_is_mgmt) begin
            if (!rx_last_i) begin
              rx_state_d = RxMgmt;
            end
          end else if (rx_is_data) begin
            if (!rx_last_i) begin
              rx_state_d = RxData;
            end
          end else if (!rx_is_notify && !rx_is_resp && !rx_is_group && !rx_is_cnp) begin
            if (rx_last_i) begin
              // a one-flit packet not for SE, TE or the group engine, or a one-flit PFC frame
              net_drop = 1'b1;
            end else begin
              rx_state_d = (rx_hdr.pkt_type == PktPfc) ? RxPfc : RxDrop;
            end
          end
        end
        RxPfc: begin
          if (rx_last_i) begin
            pfc_valid  = pfc_len_ok_q;
            net_drop   = !pfc_len_ok_q;
            rx_state_d = RxHead;
          end else begin
            rx_state_d = RxDrop;  // a third flit: malformed, dropped at its last
          end
        end
        RxDrop: begin
          if (rx_last_i) begin
            net_drop   = 1'b1;
            rx_state_d = RxHead;
          end
        end
        RxMgmt, RxData: begin
          if (rx_last_i) begin
            rx_state_d = RxHead;
          end
        end
        default: rx_state_d = RxHead;
      endcase
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rx_state_q   <= RxHead;
      pfc_class_q  <= '0;
      pfc_len_ok_q <= 1'b0;
    end else begin
      rx_state_q <= rx_state_d;
      if (rx_fire && rx_head) begin
        pfc_class_q  <= rx_pfc_head.class_enable;
        pfc_len_ok_q <= rx_pfc_head.len_flits == PFC_FRAME_LEN_FLITS_W'(2);
      end
    end
  end

  // =========================================================================
  // PFC reception: the switch's pfc_rx (docs/switch-pfc.md)
  // =========================================================================
  // Reset by rst_ni only: a soft reset or CTRL.ENABLE = 0 leaves the link's
  // pause alone. No watchdog: nothing is ignored.
  logic [PfcCpqW-1:0] pfc_cpq;
  prio_mask_t pfc_xoff, pfc_stop, pfc_evt_xoff, pfc_evt_xon;
  pfc_quanta_t pfc_quanta;
  logic tx_paused;

  // CYC_PER_QUANTUM 0 acts as 1 (nic_csr.rdl).
  assign pfc_cpq    = (hwif_out.PFC_CFG.CYC_PER_QUANTUM.value == '0) ?
                      PfcCpqW'(1) : hwif_out.PFC_CFG.CYC_PER_QUANTUM.value;
  assign pfc_quanta = rx_pfc_tail.quanta;

  pfc_rx #(
    .NumPrio(NUM_PRIO),
    .CpqW   (PfcCpqW)
  ) u_pfc_rx (
    .clk_i,
    .rst_ni,
    .enable_i            (hwif_out.PFC_CFG.ENABLE.value),
    .cyc_per_quantum_i   (pfc_cpq),
    .frame_valid_i       (pfc_valid),
    .frame_class_enable_i(pfc_class_q),
    .frame_quanta_i      (pfc_quanta),
    .ignore_i            ('0),
    .xoff_o              (pfc_xoff),
    .stop_o              (pfc_stop),
    .evt_xoff_rx_o       (pfc_evt_xoff),
    .evt_xon_rx_o        (pfc_evt_xon)
  );

  // The engine's priority is stopped (STATUS.TX_PAUSED); the other
  // priorities' pauses run on but stop nothing.
  assign tx_paused = pfc_stop[tc];

  nic_dcqcn dp (
    .clk_i,
    .rst_ni,
    .psel_i          (dp_psel),
    .penable_i       (dp_penable),
    .pwrite_i,
    .pprot_i,
    .paddr_i         (paddr_i[AddrW-2:0]),
    .pwdata_i,
    .pstrb_i,
    .prdata_o        (dp_prdata),
    .pready_o        (dp_pready),
    .pslverr_o       (dp_pslverr),
    .own_lid_i       (own_lid),
    .paused_i        (pfc_stop),
    .rx_data_i       (rx_data_i),
    .rx_last_i       (rx_last_i),
    .rx_data_valid_i (dp_rx_data_valid),
    .rx_data_first_i (rx_head),
    .rx_cnp_valid_i  (dp_rx_cnp_valid),
    .cnp_valid_o     (dp_cnp_valid),
    .cnp_paused_o    (dp_cnp_paused),
    .cnp_shown_i     (cnp_go),
    .cnp_ready_i     (dp_cnp_ready),
    .cnp_hdr_o       (dp_cnp_hdr),
    .data_allow_i    (dp_data_allow),
    .data_busy_o     (dp_data_busy),
    .data_valid_o    (dp_data_valid),
    .data_ready_i    (dp_data_ready),
    .data_o          (dp_data),
    .data_last_o     (dp_data_last)
  );

  // =========================================================================
  // Network arbiter (docs/nic/dcqcn.md §6): strict priority, the data path's
  // CNP queue head first, then the barrier engine's sources (SE's responses
  // (0), TE's NOTIFYs (1), the group engine's sends (2), the mailbox's MGMT
  // packets (3), round-robin among them), then the data path's DATA packets
  // =========================================================================
  // A new packet is chosen only when no header is held on tx (shown at the
  // last edge and not taken) and no multi-flit packet is between its first
  // and last flit: a held header stays until taken, whatever came since or
  // whatever pause, and a packet's flits leave together.
  //
  // The barrier arbiter chooses packets: it sees a packet's first flit only.
  // A header it shows and is not taken stays on tx until it is (valid/ready):
  // stream_arbiter holds the grant on it, unless the source withdraws it
  // (only a soft reset does that). While a CNP is chosen or held, or a DATA
  // packet is on the link, the barrier sources are not shown to it at all,
  // so no grant is taken or held. Once a MGMT header has left (tx_in_pkt_q),
  // the link belongs to the mailbox until its last flit has left; once a
  // DATA header is granted, to the sender until its last flit (dp_data_busy).
  // While NET_CFG.TC is paused the barrier sources are not shown, except the
  // one whose header was shown and not taken at the last edge (a pause acts
  // between packets). A CNP waits while NP_CFG.CNP_PRIO is paused, a DATA
  // flow while its FLOW_CFG.PRIO is (the sender's choice), unless their
  // header is already held.
  logic [3:0] net_valid, net_ready, net_gnt_unused;
  logic [1:0] net_idx;  // the barrier source shown
  logic [1:0] tx_held_idx_q;  // the barrier source shown and not taken at the last edge
  logic net_shown, net_take, tx_fire;
  logic tx_held_q;  // a barrier header shown and not taken at the last edge
  logic cnp_held_q;  // a CNP shown and not taken at the last edge
  logic tx_in_pkt_q;  // a MGMT header has left, its last flit has not
  logic tx_busy;  // a packet is between its flits, or a header is held
  pkt_hdr_t tx_hdr;

  assign tx_busy = tx_in_pkt_q || dp_data_busy || tx_held_q || cnp_held_q;
  assign cnp_go  = cnp_held_q ||
                   (!tx_busy && dp_cnp_valid && !dp_cnp_paused);

  always_comb begin
    net_valid = {mb_tx_valid, ge_tx_valid, te_tx_valid, se_resp_valid};
    if (tx_in_pkt_q || dp_data_busy || cnp_go) begin
      net_valid = '0;
    end else if (tx_paused) begin
      net_valid &= tx_held_q ? (4'b0001 << tx_held_idx_q) : 4'b0000;
    end
  end

  assign net_take = tx_ready_i && !tx_in_pkt_q;

  stream_arbiter #(
    .NumReq(4)
  ) u_net_arb (
    .clk_i,
    .rst_ni,
    .valid_i(net_valid),
    .ready_o(net_ready),
    .valid_o(net_shown),
    .ready_i(net_take),
    .gnt_o  (net_gnt_unused),
    .idx_o  (net_idx)
  );

  // DATA may start a packet when nothing else is on tx or chosen.
  assign dp_data_allow = !tx_busy && !cnp_go && !net_shown;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tx_held_q     <= 1'b0;
      tx_held_idx_q <= '0;
      cnp_held_q    <= 1'b0;
      tx_in_pkt_q   <= 1'b0;
    end else begin
      tx_held_q     <= net_shown && !tx_ready_i;
      tx_held_idx_q <= net_idx;
      cnp_held_q    <= cnp_go && !tx_ready_i;
      if (mb_tx_valid && mb_tx_ready) begin
        tx_in_pkt_q <= !mb_tx_last;
      end
    end
  end

  // Every barrier header leaves on the engine's priority, stamped as it
  // leaves; the mailbox's payload flits are not headers.
  always_comb begin
    unique case (net_idx)
      2'd1:    tx_hdr = te_tx_hdr;
      2'd2:    tx_hdr = ge_tx_hdr;
      2'd3:    tx_hdr = pkt_hdr_t'(mb_tx_data);
      default: tx_hdr = se_resp_hdr;
    endcase
    tx_hdr.prio = tc;
  end
  // The port is driven from these, and the checks below read them: Verilator
  // 5.006's SystemC output cannot read back a wide output port that a process
  // writes.
  flit_t tx_data;
  logic tx_valid, tx_last;
  assign tx_valid_o = tx_valid;
  assign tx_data_o  = tx_data;
  assign tx_last_o  = tx_last;
  always_comb begin
    if (tx_in_pkt_q) begin
      tx_valid = mb_tx_valid;
      tx_data  = mb_tx_data;
      tx_last  = mb_tx_last;
    end else if (cnp_go) begin
      tx_valid = 1'b1;
      tx_data  = flit_t'(dp_cnp_hdr);
      tx_last  = 1'b1;
    end else if (net_shown) begin
      tx_valid = 1'b1;
      tx_data  = flit_t'(tx_hdr);
      tx_last  = net_idx != 2'd3;
    end else begin
      tx_valid = dp_data_valid;
      tx_data  = dp_data;
      tx_last  = dp_data_last;
    end
  end
  assign tx_fire       = tx_valid && tx_ready_i;
  assign dp_cnp_ready  = cnp_go && tx_ready_i;
  assign dp_data_ready = !tx_in_pkt_q && !cnp_go && !net_shown && tx_ready_i;
  assign se_resp_ready = net_ready[0];
  assign te_tx_ready   = net_ready[1];
  assign ge_tx_ready   = net_ready[2];
  assign mb_tx_ready   = tx_in_pkt_q ? tx_ready_i : net_ready[3];

  // =========================================================================
  // Memory-access arbiter: OF's reads (0) and the completion unit's writes (1)
  // =========================================================================
  // A request goes out only with room to remember its kind: the response
  // comes back in order and is routed by the FIFO's head. Without room the
  // sources are not shown to the arbiter at all, so nothing is presented and
  // no grant is locked while the FIFO is full.
  logic [1:0] mem_ready, mem_gnt_unused;
  logic mem_idx, mem_req_fire, mem_rsp_fire;
  logic tag_space, tag_valid, tag_write;
  logic [$clog2(MemOutstanding+1)-1:0] tag_count;

  stream_arbiter #(
    .NumReq(2)
  ) u_mem_arb (
    .clk_i,
    .rst_ni,
    .valid_i({wr_req_valid, rd_req_valid} & {2{tag_space}}),
    .ready_o(mem_ready),
    .valid_o(mem_req_valid_o),
    .ready_i(mem_req_ready_i),
    .gnt_o  (mem_gnt_unused),
    .idx_o  (mem_idx)
  );

  assign mem_req_write_o = mem_idx;
  assign mem_req_addr_o  = mem_idx ? wr_req_addr : rd_req_addr;
  assign mem_req_data_o  = mem_idx ? wr_req_data : '0;
  assign mem_req_fire    = mem_req_valid_o && mem_req_ready_i;
  assign rd_req_ready    = mem_ready[0];
  assign wr_req_ready    = mem_ready[1];

  sync_fifo #(
    .T    (logic),
    .Depth(MemOutstanding)
  ) u_mem_tags (
    .clk_i,
    .rst_ni,
    .clr_i   (1'b0),
    .wvalid_i(mem_req_fire),
    .wready_o(tag_space),
    .wdata_i (mem_idx),
    .rvalid_o(tag_valid),
    .rready_i(mem_rsp_fire),
    .rdata_o (tag_write),
    .count_o (tag_count)
  );

  assign rd_rsp_valid    = mem_rsp_valid_i && tag_valid && !tag_write;
  assign wr_rsp_valid    = mem_rsp_valid_i && tag_valid && tag_write;
  assign mem_rsp_ready_o = tag_valid && (tag_write ? wr_rsp_ready : rd_rsp_ready);
  assign mem_rsp_fire    = mem_rsp_valid_i && mem_rsp_ready_o;

  // =========================================================================
  // Registers fed by the engine
  // =========================================================================
  logic [2:0] drop_incr;
  logic [1:0] dup_incr;
  logic [7:0] active_ctx;
  logic       busy;

  // Up to four CNT_DROP sources per cycle (SE, TE's unmatched response, one
  // header's verdict: TE's stray, the demux's unknown type or the group
  // engine's rx drop, never two since one header is taken per cycle, and the
  // group engine's discarded arrival set, which falls in an activation's
  // cycle, when the group engine takes no header). incrwidth = 3 in
  // nic_csr.rdl. The mailbox's verdict is one more packet's (at a MGMT
  // packet's last flit; one packet ends per cycle), so it falls with none of
  // the three and the sum stays within 4. CNT_DUP: SE's (a header or its
  // drain) and the group engine's, incrwidth = 2.
  assign drop_incr = 3'(se_evt_drop) + 3'(te_evt_drop) + 3'(te_evt_stray) + 3'(net_drop) +
                     3'(ge_evt_drop) + 3'(mb_evt_drop);
  assign dup_incr  = 2'(se_evt_dup) + 2'(ge_evt_dup);

  always_comb begin
    active_ctx = '0;
    for (int unsigned c = 0; c < NumCtx; c++) begin
      active_ctx = active_ctx + 8'(ctx_busy[c]);
    end
  end

  // §8: anything queued, running or waiting to complete. Parked notifications
  // are not work of this engine (a future epoch may sit there for ever).
  assign busy = of_busy || te_busy || cq_busy || se_drain_busy || se_flush_busy ||
                se_resp_valid || (ctx_active != '0) || ge_busy || tx_in_pkt_q || net_shown ||
                tag_valid;

  // The register inputs in two processes: the fields below follow registers
  // only, those of the next one follow this cycle's rx, tx and memory
  // handshakes (top-level inputs). Logic that reads an input is re-evaluated
  // on every model evaluation; kept apart, the first group is evaluated once
  // per clock edge.
  always_comb begin
    // HDQ_WINDOW is served inside nic_csr: its inputs stay 0 (nic_csr asserts it).
    hwif_in.HDQ_WINDOW.rd_ack           = 1'b0;
    hwif_in.HDQ_WINDOW.wr_ack           = 1'b0;
    hwif_in.HDQ_WINDOW.rd_data          = '0;
    hwif_in.HW_CFG.NUM_CTX.next         = 8'(NumCtx);
    hwif_in.HW_CFG.K_MAX.next           = 8'(K_MAX);
    hwif_in.HW_CFG.MAX_ROUNDS.next      = 8'(MAX_ROUNDS);
    hwif_in.HW_CFG.HDQ_DEPTH.next       = 8'(HdqDepth);
    hwif_in.HW_CFG2.MAX_MEMBERS.next    = 16'(MaxMembers);
    hwif_in.HW_CFG2.MBOX_DEPTH.next     = 8'(MboxDepth);
    hwif_in.MBOX_STATUS.TX_BUSY.next    = mb_tx_busy;
    hwif_in.MBOX_STATUS.RX_LEVEL.next   = mb_rx_level;
    hwif_in.MBOX_RX_DATA0.WORD.next     = mb_rx_words[0];
    hwif_in.MBOX_RX_DATA1.WORD.next     = mb_rx_words[1];
    hwif_in.MBOX_RX_DATA2.WORD.next     = mb_rx_words[2];
    hwif_in.MBOX_RX_DATA3.WORD.next     = mb_rx_words[3];
    hwif_in.MBOX_RX_DATA4.WORD.next     = mb_rx_words[4];
    hwif_in.MBOX_RX_DATA5.WORD.next     = mb_rx_words[5];
    hwif_in.MBOX_RX_DATA6.WORD.next     = mb_rx_words[6];
    hwif_in.MBOX_RX_DATA7.WORD.next     = mb_rx_words[7];
    hwif_in.MBOX_RX_SRC.SRC_LID.next    = mb_rx_src;
    hwif_in.STATUS.BUSY.next            = busy;
    hwif_in.STATUS.RESETTING.next       = soft_reset || se_flush_busy;
    hwif_in.STATUS.TX_PAUSED.next       = tx_paused;
    hwif_in.STATUS.ACTIVE_CTX.next      = active_ctx;
    hwif_in.INTR_STATUS.DONE.next       = cq_intr_done;
    hwif_in.INTR_STATUS.ERROR.next      = cq_intr_error;
    hwif_in.INTR_STATUS.HDQ_OVERFLOW.next = of_intr_hdq_overflow;
    hwif_in.SDQ_CONS.INDEX.next         = sdq_cons;
    hwif_in.CQ_HEAD.INDEX.next          = cq_head;
    hwif_in.HDQ_POST.LEVEL.next         = hdq_level;
    hwif_in.HDQ_POST.FULL.next          = hdq_full;
    hwif_in.CNT_NACK_RECV.COUNT.incr    = te_evt_nack;
    hwif_in.CNT_COMPLETION.COUNT.incr   = cq_evt_completion;
    // CNT_ERROR counts error records of every source: the completion unit's
    // pulse only (TE's evt_error_o is its share, debug only).
    hwif_in.CNT_ERROR.COUNT.incr        = cq_evt_error;
  end

  always_comb begin
    hwif_in.INTR_STATUS.DMA_ERROR.next  = of_intr_dma_error || cq_intr_dma_error;
    hwif_in.CNT_NOTIF_SENT.COUNT.incr   = te_evt_sent;
    hwif_in.CNT_NOTIF_RECV.COUNT.incr   = se_evt_recv;
    hwif_in.CNT_NACK_SENT.COUNT.incr    = se_evt_nack;
    hwif_in.CNT_RETRY.COUNT.incr        = te_evt_retry;
    hwif_in.CNT_DROP.COUNT.incr         = drop_incr != '0;
    hwif_in.CNT_DROP.COUNT.incrvalue    = drop_incr;
    hwif_in.CNT_DUP.COUNT.incr          = dup_incr != '0;
    hwif_in.CNT_DUP.COUNT.incrvalue     = dup_incr;
    hwif_in.CNT_ARRIVE_SENT.COUNT.incr  = ge_evt_arrive_sent;
    hwif_in.CNT_ARRIVE_RECV.COUNT.incr  = ge_evt_arrive_recv;
    hwif_in.CNT_RELEASE_SENT.COUNT.incr = ge_evt_release_sent;
    hwif_in.CNT_RELEASE_RECV.COUNT.incr = ge_evt_release_recv;
    hwif_in.CNT_GROUP_RETRY.COUNT.incr  = ge_evt_retry;
    hwif_in.CNT_PFC_RX.COUNT.incr       = pfc_valid;
    hwif_in.CNT_PAUSE_RX.COUNT.incr     = pfc_evt_xoff[tc];
    hwif_in.CNT_MGMT_SENT.COUNT.incr    = mb_evt_sent;
    hwif_in.CNT_MGMT_RECV.COUNT.incr    = mb_evt_recv;
    hwif_in.INTR_STATUS.MGMT_RX.next    = mb_evt_recv;
  end

  // Debug / trace names of §9 with no port of their own.
  logic unused_debug;
  assign unused_debug = ^{se_evt_rx, se_verdict, se_damq_free, te_evt_ack, te_evt_error,
                          te_resp_damq_free, of_hdq_post, of_fetch, of_activate, of_reject,
                          cq_phase, cq_stall, cq_done_rec, tag_count, hdq_window,
                          hwif_out.CTRL.CNT_CLEAR.value, hwif_out.SDQ_PROD.INDEX.swmod,
                          hwif_out.CQ_TAIL.INDEX.swmod,
                          hwif_out.INTR_STATUS.intr, pfc_xoff, pfc_evt_xon, rx_pfc_head,
                          rx_pfc_tail, mb_tx_started};

  // =========================================================================
  // Rules of the top
  // =========================================================================
`ifndef SYNTHESIS
  // Values of the previous cycle for the rules that compare two cycles:
  // registers written at every edge, like $past, but without the sampled
  // copy of the argument that Verilator refreshes on every evaluation.
  flit_t     tx_data_prev_q;
  logic      tx_waiting_prev_q;  // shown and not taken
  prio_t cnp_prio, cnp_prio_prev_q;
  lid_t      own_lid_prev_q;
  prio_t     tc_prev_q;
  logic      mem_req_write_prev_q;
  mem_addr_t mem_req_addr_prev_q;
  mem_data_t mem_req_data_prev_q;
  always_ff @(posedge clk_i) begin
    tx_data_prev_q       <= tx_data;
    tx_waiting_prev_q    <= tx_valid && !tx_ready_i;
    own_lid_prev_q       <= own_lid;
    tc_prev_q            <= tc;
    cnp_prio_prev_q      <= cnp_prio;
    mem_req_write_prev_q <= mem_req_write_o;
    mem_req_addr_prev_q  <= mem_req_addr_o;
    mem_req_data_prev_q  <= mem_req_data_o;
  end

  assign cnp_prio = dp_cnp_hdr.prio;

  pkt_hdr_t chk_tx_hdr;  // the flit on tx read as a header (the rules read some fields)
  logic     unused_chk_tx_hdr;
  assign chk_tx_hdr        = pkt_hdr_t'(tx_data);
  assign unused_chk_tx_hdr = ^chk_tx_hdr;

  // The tx stream read apart from the arbiter: inside a packet (a first flit
  // without last left), its len_flits and the flits that left.
  logic chk_tx_in_pkt_q;
  logic [PKT_HDR_LEN_FLITS_W-1:0] chk_tx_len_q, chk_tx_flits_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      chk_tx_in_pkt_q <= 1'b0;
      chk_tx_len_q    <= '0;
      chk_tx_flits_q  <= '0;
    end else if (tx_valid && tx_ready_i) begin
      if (tx_last) begin
        chk_tx_in_pkt_q <= 1'b0;
      end else if (!chk_tx_in_pkt_q) begin
        chk_tx_in_pkt_q <= 1'b1;
        chk_tx_len_q    <= chk_tx_hdr.len_flits;
        chk_tx_flits_q  <= PKT_HDR_LEN_FLITS_W'(1);
      end else begin
        chk_tx_flits_q <= chk_tx_flits_q + PKT_HDR_LEN_FLITS_W'(1);
      end
    end
  end

  // The rx stream read again, apart from the demux, for its rules: inside a
  // packet (a first flit without last was taken), that first flit's type and
  // len_flits, and the flits taken since it (saturating at 3).
  logic      chk_in_pkt_q;
  pkt_type_e chk_type_q;
  logic [PKT_HDR_LEN_FLITS_W-1:0] chk_len_q;
  logic [1:0] chk_flits_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      chk_in_pkt_q <= 1'b0;
      chk_type_q   <= PktData;
      chk_len_q    <= '0;
      chk_flits_q  <= '0;
    end else if (rx_valid_i && rx_ready_o) begin
      if (rx_last_i) begin
        chk_in_pkt_q <= 1'b0;
      end else if (!chk_in_pkt_q) begin
        chk_in_pkt_q <= 1'b1;
        chk_type_q   <= rx_hdr.pkt_type;
        chk_len_q    <= rx_hdr.len_flits;
        chk_flits_q  <= 2'd1;
      end else if (chk_flits_q != 2'd3) begin
        chk_flits_q <= chk_flits_q + 2'd1;
      end
    end
  end

  // Every flit taken goes to one place, and a packet is accounted for once,
  // at its last flit: SE, TE, pfc_rx or the drop.
  // verilog_format: off
  `NIC_ASSERT_IMP(a_rx_one_destination, rx_fire,
                  rx_last_i ? $onehot({se_rx_valid && se_rx_ready, te_resp_valid && te_resp_ready,
                                       ge_rx_valid && ge_rx_ready, pfc_valid, net_drop,
                                       mb_evt_recv || mb_evt_drop,
                                       dp_rx_data_valid || dp_rx_cnp_valid})
                            : !(se_rx_valid || te_resp_valid || ge_rx_valid || pfc_valid ||
                                net_drop || mb_evt_recv || mb_evt_drop || dp_rx_cnp_valid))
  // Every flit of a DATA packet, and only those, reaches the data path; a
  // CNP only when it is one flit.
  `NIC_ASSERT_IMP(a_rx_data_to_dp, rx_valid_i,
                  dp_rx_data_valid == (chk_in_pkt_q ? chk_type_q == PktData
                                                    : rx_hdr.pkt_type == PktData))
  `NIC_ASSERT_IMP(a_rx_cnp_to_dp, dp_rx_cnp_valid,
                  !chk_in_pkt_q && rx_last_i && rx_hdr.pkt_type == PktCnp)
  // Every flit of a MGMT packet, and only those, reaches the mailbox.
  `NIC_ASSERT_IMP(a_rx_mgmt_to_mbox, rx_valid_i,
                  mb_rx_valid == (chk_in_pkt_q ? chk_type_q == PktMgmt
                                               : rx_hdr.pkt_type == PktMgmt))
  // SE and TE get one-flit packets of their types only, at a packet's start.
  `NIC_ASSERT_IMP(a_rx_notify_to_se, se_rx_valid,
                  !chk_in_pkt_q && rx_last_i && rx_hdr.pkt_type == PktNotify)
  `NIC_ASSERT_IMP(a_rx_resp_to_te, te_resp_valid,
                  !chk_in_pkt_q && rx_last_i && (rx_hdr.pkt_type == PktAck ||
                                                 rx_hdr.pkt_type == PktNack))
  `NIC_ASSERT_IMP(a_rx_group_to_ge, ge_rx_valid,
                  !chk_in_pkt_q && rx_last_i && rx_hdr.pkt_type inside {PktArrive, PktRelease,
                                                                         PktCombRelease})
  // What reaches pfc_rx is the last flit of a two-flit PFC frame whose first
  // flit says len_flits 2.
  `NIC_ASSERT_IMP(a_rx_pfc_well_formed, pfc_valid,
                  rx_valid_i && rx_ready_o && rx_last_i && chk_in_pkt_q && chk_flits_q == 2'd1 &&
                  chk_type_q == PktPfc && chk_len_q == PKT_HDR_LEN_FLITS_W'(2))
  // A dropped packet is counted at its last flit, and never a one-flit
  // NOTIFY/ACK/NACK (SE's and TE's) or a well-formed PFC frame.
  `NIC_ASSERT_IMP(a_rx_drop_at_last, net_drop,
                  rx_valid_i && rx_ready_o && rx_last_i &&
                  (chk_in_pkt_q ? !(chk_flits_q == 2'd1 && chk_type_q == PktPfc &&
                                    chk_len_q == PKT_HDR_LEN_FLITS_W'(2))
                                : !(rx_hdr.pkt_type inside {PktNotify, PktAck, PktNack,
                                                            PktArrive, PktRelease,
                                                            PktCombRelease, PktCnp})) &&
                  (chk_in_pkt_q ? !(chk_type_q inside {PktMgmt, PktData})
                                : !(rx_hdr.pkt_type inside {PktMgmt, PktData})))
  // A header shown on tx stays, unchanged, until taken (a soft reset may
  // withdraw what SE or TE hold; NODE_LID (SE's responses) and NET_CFG.TC
  // (every header) are stamped as the header leaves, so software rewriting
  // them changes a waiting header).
  `NIC_ASSERT_NXT(a_tx_hold, tx_valid && !tx_ready_i && !soft_reset,
                  tx_valid && (tx_data == tx_data_prev_q || own_lid != own_lid_prev_q ||
                                 tc != tc_prev_q || cnp_prio != cnp_prio_prev_q))
  // One packet per cycle, from one source; nothing granted that is not asked.
  `NIC_ASSERT_IMP(a_tx_one_source, tx_fire,
                  $onehot({se_resp_ready, te_tx_ready, ge_tx_ready, mb_tx_ready, dp_cnp_ready,
                           dp_data_ready}))
  // Every packet sent other than the mailbox's and DATA is one flit: last, and
  // a header that says so; a MGMT header says MGMT_FLITS and is not last, a
  // DATA header two flits or more and is not last.
  `NIC_ASSERT_IMP(a_tx_one_flit,
                  tx_valid && !chk_tx_in_pkt_q &&
                  !(chk_tx_hdr.pkt_type inside {PktMgmt, PktData}),
                  tx_last && chk_tx_hdr.len_flits == PKT_HDR_LEN_FLITS_W'(1))
  `NIC_ASSERT_IMP(a_tx_data_header,
                  tx_valid && !chk_tx_in_pkt_q && chk_tx_hdr.pkt_type == PktData,
                  !tx_last && chk_tx_hdr.len_flits >= PKT_HDR_LEN_FLITS_W'(2))
  `NIC_ASSERT_IMP(a_tx_mgmt_header,
                  tx_valid && !chk_tx_in_pkt_q && chk_tx_hdr.pkt_type == PktMgmt,
                  !tx_last && chk_tx_hdr.len_flits == PKT_HDR_LEN_FLITS_W'(MGMT_FLITS))
  // A packet's flits leave together: inside a packet only its source, the
  // mailbox or the sender, is on tx (nothing is shown to the barrier
  // arbiter, no CNP chosen), and the last flit is the header's len_flits-th.
  `NIC_ASSERT_IMP(a_tx_no_interleave, chk_tx_in_pkt_q && tx_valid,
                  net_valid == '0 && !cnp_go &&
                  (tx_in_pkt_q ? tx_data == mb_tx_data && mb_tx_ready == tx_ready_i
                               : dp_data_busy && tx_data == dp_data &&
                                 dp_data_ready == tx_ready_i))
  `NIC_ASSERT_IMP(a_tx_payload_follows, chk_tx_in_pkt_q, tx_valid)
  `NIC_ASSERT_IMP(a_tx_len_matches, tx_fire && chk_tx_in_pkt_q,
                  tx_last == (32'(chk_tx_flits_q) + 1 == 32'(chk_tx_len_q)))
  `NIC_ASSERT_IMP(a_tx_prio_is_tc, net_shown, chk_tx_hdr.prio == tc)
  // While the engine's priority is paused, the only packet starting on tx is
  // one that was shown before and not taken: no packet starts during a
  // pause (a packet already started finishes).
  `NIC_ASSERT_IMP(a_no_tx_start_while_paused, net_shown && pfc_stop[tc],
                  tx_waiting_prev_q && (tx_data == tx_data_prev_q ||
                                        own_lid != own_lid_prev_q || tc != tc_prev_q))
  // The same for CNPs on NP_CFG.CNP_PRIO (DATA: the sender's a_grant_eligible).
  `NIC_ASSERT_IMP(a_no_cnp_start_while_paused, cnp_go && !cnp_held_q, !dp_cnp_paused)
  // Strict order: a CNP before the barrier engine, both before DATA.
  `NIC_ASSERT_IMP(a_tx_cnp_first, dp_cnp_valid && !dp_cnp_paused && !tx_busy, cnp_go)
  `NIC_ASSERT_IMP(a_tx_data_last, dp_data_valid && !dp_data_busy,
                  !(dp_cnp_valid && !dp_cnp_paused) &&
                  !((se_resp_valid || te_tx_valid || ge_tx_valid || mb_tx_valid) && !tx_paused))
  // Memory: a request held until taken, one response per request, in order.
  `NIC_ASSERT_NXT(a_mem_req_hold, mem_req_valid_o && !mem_req_ready_i,
                  mem_req_valid_o && mem_req_write_o == mem_req_write_prev_q &&
                  mem_req_addr_o == mem_req_addr_prev_q && mem_req_data_o == mem_req_data_prev_q)
  `NIC_ASSERT_IMP(a_mem_rsp_expected, mem_rsp_valid_i, tag_valid)
  `NIC_ASSERT_IMP(a_mem_rsp_taken, mem_rsp_valid_i, mem_rsp_ready_o)
  `NIC_ASSERT_IMP(a_mem_one_source, mem_req_fire,
                  $onehot({rd_req_valid && rd_req_ready, wr_req_valid && wr_req_ready}))
  // Counters: the demux drop, TE's stray and the group engine's rx drop are
  // one header each, so no two fall in the same cycle; the group engine's
  // set discard falls in an activation's cycle, when it takes no header. The
  // sums fit the 3-bit and 2-bit increments.
  `NIC_ASSERT_ONEHOT0(a_drop_sources_fit,
                      {net_drop, te_evt_stray, ge_evt_drop && ge_rx_valid && ge_rx_ready,
                       mb_evt_drop})
  `NIC_ASSERT(a_drop_sum_fits,
              32'(se_evt_drop) + 32'(te_evt_drop) + 32'(te_evt_stray) +
              32'(net_drop) + 32'(ge_evt_drop) + 32'(mb_evt_drop) <= 4)
  `NIC_ASSERT_IMP(a_ge_drop_one_cause, ge_evt_drop, !(act_ge_valid && act_ge_ready) ||
                                                     !(ge_rx_valid && ge_rx_ready))
  // A record reaches the completion unit from one source at a time.
  `NIC_ASSERT_IMP(a_rec_one_source, rec_valid && rec_ready,
                  $onehot({te_done_ready, ge_done_ready}))
  `NIC_ASSERT(a_active_ctx_in_range, 32'(active_ctx) <= NumCtx)
  // A record reaches the CSR counters exactly when the completion unit says.
  `NIC_ASSERT_IMP(a_error_is_completion, cq_evt_error, cq_evt_completion)
  `NIC_ASSERT_KNOWN(a_tx_valid_known, tx_valid)
  `NIC_ASSERT_KNOWN(a_mem_req_valid_known, mem_req_valid_o)
  `NIC_ASSERT_KNOWN(a_rx_ready_known, rx_ready_o)
  // verilog_format: on
`endif  // SYNTHESIS

endmodule
