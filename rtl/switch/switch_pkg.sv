// Types shared by the switch pipeline blocks (rtl/switch/). Every width comes
// from the format spec (syncfab_fmt_pkg, generated from rtl/spec/formats.toml):
// a flit, a LID, a priority and the fields a copy's header patch rewrites.

package switch_pkg;

  import syncfab_fmt_pkg::*;

  localparam int unsigned NumPrio = NUM_PRIO;
  localparam int unsigned PrioW = PKT_HDR_PRIO_W;

  typedef logic [FLIT_BITS-1:0] flit_t;
  typedef logic [LID_WIDTH-1:0] lid_t;
  typedef logic [PrioW-1:0] prio_t;
  typedef logic [NumPrio-1:0] prio_mask_t;  // one bit per priority / egress queue
  typedef logic [PKT_HDR_LEN_FLITS_W-1:0] len_t;  // a packet's length in flits

  // What the enqueue engine decides for one copy and the egress writes into
  // the copy's header: the egress queue (remapped priority), the ECN
  // codepoint after WRED and the (remapped) DSCP.
  typedef struct packed {
    logic [PKT_HDR_DSCP_W-1:0] dscp;
    ecn_e                      ecn;
    prio_t                     prio;
  } hdr_patch_t;

  // Pause time per priority, as a PFC frame's second flit carries it.
  typedef logic [NumPrio-1:0][PFC_FRAME_QUANTA_W-1:0] pfc_quanta_t;

endpackage
