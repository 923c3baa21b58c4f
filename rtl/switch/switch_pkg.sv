// Types shared by the switch pipeline blocks (rtl/switch/). Every width comes
// from a generated package, never from a number typed here:
//   * syncfab_fmt_pkg (rtl/spec/formats.toml): a flit, a LID, a priority, the
//     header fields a copy's patch rewrites, a PFC frame's quanta;
//   * switch_csr_reg_pkg (PeakRDL, rtl/switch/switch_csr.rdl): the APB port
//     and every configuration or status value a register field carries, as
//     wide as its field (the hwif structs of the generated package); where a
//     field sits in a register word is switch_csr_reg_addr_pkg's
//     (scripts/rdl_sv_addr.py).
// The types that depend on a switch's shape (NumPorts, BufCells) are in
// switch_types.svh: the modules declare them from their own parameters.

package switch_pkg;

  import syncfab_fmt_pkg::*;
  import switch_csr_reg_pkg::*;

  localparam int unsigned NumPrio = NUM_PRIO;
  localparam int unsigned PrioW = PKT_HDR_PRIO_W;
  // Most ports a switch has: the register map holds NUM_PORTS PORT blocks.
  localparam int unsigned MaxPorts = NUM_PORTS;

  typedef logic [FLIT_BITS-1:0] flit_t;
  typedef logic [LID_WIDTH-1:0] lid_t;
  typedef logic [PrioW-1:0] prio_t;
  typedef logic [NumPrio-1:0] prio_mask_t;  // one bit per priority / egress queue
  typedef logic [PKT_HDR_LEN_FLITS_W-1:0] len_t;  // a packet's length in flits
  typedef logic [PKT_HDR_DSCP_W-1:0] dscp_t;

  // ---------------------------------------------------------------------------
  // The APB4 completer port (switch_csr_reg_top's geometry)
  // ---------------------------------------------------------------------------
  // AMBA APB4 fixes PPROT at three bits; the generated package has no
  // constant for it.
  localparam int unsigned ApbProtW = 3;
  typedef logic [SWITCH_CSR_REG_TOP_MIN_ADDR_WIDTH-1:0] csr_addr_t;
  typedef logic [SWITCH_CSR_REG_TOP_DATA_WIDTH-1:0] csr_data_t;
  typedef logic [SWITCH_CSR_REG_TOP_DATA_WIDTH/8-1:0] csr_strb_t;
  typedef logic [ApbProtW-1:0] csr_prot_t;

  // ---------------------------------------------------------------------------
  // Register field values, each as wide as its field. Fields that pair up
  // (even/odd priority, XOFF/XON, Kmin/Kmax, the three watchdog times) are
  // checked equal in switch_top (a_csr_field_widths).
  // ---------------------------------------------------------------------------
  typedef logic [$bits(switch_csr__PORTx__WEIGHTx__W_EVEN__out_t)-1:0] weight_t;  // WDRR weight
  typedef logic [$bits(switch_csr__PORTx__QUANTAx__Q_EVEN__out_t)-1:0] quanta_t;  // pause quanta
  typedef logic [$bits(switch_csr__PORTx__PFC_THRx__XOFF__out_t)-1:0] thr_t;  // XOFF/XON, cells
  // WRED queue length and its Kmin/Kmax (cells), and Pmax (/ 2^ProbW).
  typedef logic [$bits(switch_csr__PORTx__WRED_Kx__KMIN__out_t)-1:0] qlen_t;
  typedef logic [$bits(switch_csr__PORTx__WRED_Px__P0__out_t)-1:0] pmax_t;
  typedef logic [$bits(switch_csr__PORTx__LOSSY_LIMIT__LIMIT__out_t)-1:0] lossy_limit_t;
  typedef logic [$bits(switch_csr__PFC_TIMING__CYC_PER_QUANTUM__out_t)-1:0] cpq_t;
  typedef logic [$bits(switch_csr__PFC_TIMING__REFRESH__out_t)-1:0] refresh_t;
  typedef logic [$bits(switch_csr__WD_DETECT_TIME__CYCLES__out_t)-1:0] wd_time_t;
  typedef logic [$bits(switch_csr__WD_LIMIT__LIMIT__out_t)-1:0] wd_limit_t;
  // A port number as software writes it (CNT_SEL, WD_REENABLE, an LFT entry).
  typedef logic [$bits(switch_csr__CNT_SEL__PORT__out_t)-1:0] port_num_t;
  typedef logic [$bits(switch_csr__TBL_ADDR__INDEX__out_t)-1:0] tbl_index_t;
  typedef logic [$bits(switch_csr__TBL_ADDR__TABLE__out_t)-1:0] tbl_sel_t;
  typedef logic [$bits(switch_csr__TBL_WDATA__DATA__out_t)-1:0] tbl_data_t;
  typedef logic [$bits(switch_csr__CNT_VALUE__COUNT__in_t)-1:0] cnt_value_t;  // one counter
  typedef logic [$bits(switch_csr__PORT_UP__UP__out_t)-1:0] port_up_t;  // one bit per port
  // Dynamic ECN thresholds (docs/switch-ecn-dynamic.md): WIN, the threshold
  // shift (FAN_SH, SHIFT), the active inputs of a window (ACTIVE); the window
  // counter's width and WIN's least legal value (section 2, formats.toml).
  // switch_top finds WIN, PLO and PHI in a written word at the positions of
  // the generated offset package (switch_csr_reg_addr_pkg).
  typedef logic [$bits(switch_csr__ECN_DYN_CTRL__WIN__out_t)-1:0] ecn_win_t;
  typedef logic [$bits(switch_csr__ECN_DYN_CTRL__FAN_SH__out_t)-1:0] ecn_sh_t;
  typedef logic [$bits(switch_csr__ECN_DYN_STATE__ACTIVE__in_t)-1:0] ecn_act_t;
  localparam int unsigned EcnWinCntW = ECN_WIN_CNT_WIDTH;
  localparam int unsigned EcnWinMin = ECN_WIN_MIN;

  // TBL_WDATA / TBL_RDATA as the LFT, the MFT and the port groups read them
  // (switch_csr.rdl: VALID in the top bit, the port or the port mask in the
  // low bits; an LFT entry's GROUP below VALID: its port is a group index).
  typedef struct packed {
    logic                                           valid;
    logic                                           group;
    logic [$bits(tbl_data_t)-$bits(port_num_t)-3:0] rsvd;
    port_num_t                                      port;
  } lft_data_t;
  typedef struct packed {
    logic                                 valid;
    logic [$bits(tbl_data_t)-MaxPorts-2:0] rsvd;
    logic [MaxPorts-1:0]                  mask;
  } mft_data_t;

  // The combine tables (TBL_ADDR.TABLE 2 and 3, docs/group-barrier.md section
  // 5): the children are a port mask in the low bits (mft_data_t's layout);
  // the control word packs the parent port, the epoch the entry waits for,
  // the ring phases, RING, ROOT and VALID (section 9.2: RING selects ring
  // mode, where PARENT and ROOT are 0).
  typedef logic [EPOCH_WIDTH-1:0] epoch_t;
  localparam int unsigned CbPhasesW = $clog2(COMB_PHASES + 1);
  typedef logic [CbPhasesW-1:0] cb_phases_t;  // PHASES: 1 .. COMB_PHASES
  typedef struct packed {
    logic valid;
    logic root;
    logic ring;
    logic [$bits(tbl_data_t)-$bits(epoch_t)-$bits(port_num_t)-CbPhasesW-4:0] rsvd;
    cb_phases_t phases;
    epoch_t epoch;
    port_num_t parent;
  } cb_ctrl_data_t;
  // The ring tables (TBL_ADDR.TABLE 4 and 5, docs/group-barrier.md section
  // 9.2), one word per entry and phase at index (MLID - MLID_BASE) * 4 +
  // phase: the geometry (PLUS and MINUS ports, POS, LEN, ORIGIN, VALID) and
  // EXPECT, one bit per ring position.
  localparam int unsigned CbTblPhaseW = 2;  // the phase's bits in a ring table index
  typedef logic [$clog2(COMB_RING_MAX)-1:0] ring_pos_t;
  typedef logic [$clog2(COMB_RING_MAX+1)-1:0] ring_len_t;
  typedef logic [COMB_RING_MAX-1:0] ring_set_t;  // one bit per ring position
  typedef struct packed {
    logic valid;
    logic origin;
    logic [$bits(tbl_data_t)-2*$bits(port_num_t)-$bits(ring_len_t)-$bits(ring_pos_t)-3:0] rsvd;
    ring_len_t len;
    ring_pos_t pos;
    port_num_t minus;
    port_num_t plus;
  } cb_ring_data_t;
  localparam tbl_sel_t TblLft = tbl_sel_t'(0);
  localparam tbl_sel_t TblMft = tbl_sel_t'(1);
  localparam tbl_sel_t TblCbChildren = tbl_sel_t'(2);
  localparam tbl_sel_t TblCbCtrl = tbl_sel_t'(3);
  localparam tbl_sel_t TblCbRing = tbl_sel_t'(4);
  localparam tbl_sel_t TblCbExpect = tbl_sel_t'(5);
  localparam tbl_sel_t TblGroups = tbl_sel_t'(6);  // a port group: mft_data_t's layout

  // ---------------------------------------------------------------------------
  // Port groups (docs/switch-ecmp.md section 2)
  // ---------------------------------------------------------------------------
  // The header fields a lookup needs: dst_lid for the table, src_lid and
  // flow_label for a port group's flow hash.
  typedef logic [PKT_HDR_FLOW_LABEL_W-1:0] flow_label_t;
  typedef struct packed {
    lid_t        src;
    lid_t        dst;
    flow_label_t flow;
  } lk_req_t;

  // The flow hash is CRC-16/CCITT-FALSE: polynomial 0x1021, initial value
  // 0xFFFF, no reflection, no final XOR.
  localparam int unsigned FlowHashW = 16;
  typedef logic [FlowHashW-1:0] flow_hash_t;
  localparam flow_hash_t CrcPoly = 16'h1021;
  localparam flow_hash_t CrcInit = 16'hFFFF;

  function automatic flow_hash_t crc16_byte(flow_hash_t crc, logic [7:0] b);
    flow_hash_t c = crc ^ {b, 8'h00};
    for (int k = 0; k < 8; k++) c = c[FlowHashW-1] ? ((c << 1) ^ CrcPoly) : (c << 1);
    return c;
  endfunction

  // The hash over src_lid, dst_lid and the flow label padded to three
  // bytes, most significant byte first.
  localparam int unsigned FlowKeyBytes = 7;
  function automatic flow_hash_t flow_hash(lk_req_t r);
    logic [8*FlowKeyBytes-1:0] key = {r.src, r.dst, 24'(r.flow)};
    flow_hash_t crc = CrcInit;
    for (int k = FlowKeyBytes - 1; k >= 0; k--) crc = crc16_byte(crc, key[8*k+:8]);
    return crc;
  endfunction

  // ---------------------------------------------------------------------------
  // What the blocks exchange
  // ---------------------------------------------------------------------------
  // What the enqueue engine decides for one copy and the egress writes into
  // the copy's header: the egress queue (remapped priority), the ECN
  // codepoint after WRED and the (remapped) DSCP.
  typedef struct packed {
    dscp_t dscp;
    ecn_e  ecn;
    prio_t prio;
  } hdr_patch_t;

  // Pause time per priority, as a PFC frame's second flit carries it.
  typedef logic [NumPrio-1:0][PFC_FRAME_QUANTA_W-1:0] pfc_quanta_t;

  // A well-formed PFC frame an input received, for that port's pfc_rx.
  typedef struct packed {
    prio_mask_t  class_enable;
    pfc_quanta_t quanta;
  } pfc_rx_frame_t;

  // An input's events, each for one packet at its last flit, counted at the
  // packet's arrival priority. A malformed PFC frame is drop_bad without rx.
  typedef struct packed {
    logic  rx;
    logic  drop_disabled;
    logic  drop_bad;
    logic  drop_no_route;
    logic  drop_buf;
    prio_t prio;
  } in_ev_t;

  // An output's events: a copy's fate at its last flit (tx or drop_wd, at
  // its egress queue q) and the PFC / watchdog events of the port as
  // priority masks.
  typedef struct packed {
    logic       tx;
    logic       drop_wd;
    prio_t      q;
    prio_mask_t pause_tx;
    prio_mask_t resume_tx;
    prio_mask_t pause_rx;
    prio_mask_t resume_rx;
    prio_mask_t wd_detect;
    prio_mask_t wd_recover;
    prio_mask_t wd_disable;
  } out_ev_t;

endpackage
