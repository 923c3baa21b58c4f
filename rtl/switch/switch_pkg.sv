// Types shared by the switch pipeline blocks (rtl/switch/).

package switch_pkg;

  // ECN field of a packet (RFC 3168 codepoints, as the white paper's WRED/ECN
  // section uses them). Not-ECT packets cannot be marked, so WRED drops them
  // instead; CE is the mark itself and is never cleared.
  typedef enum logic [1:0] {
    EcnNotEct = 2'b00,
    EcnEct1   = 2'b01,
    EcnEct0   = 2'b10,
    EcnCe     = 2'b11
  } ecn_e;

  // State of the PFC watchdog of one egress queue (pfc_watchdog, spec
  // docs/switch-pfc.md). MONITOR counts continuous XOFF; RECOVER ignores pause
  // (or drops) for the recovery time; DISABLED treats the queue as not lossless
  // until software re-enables it. 2'b11 is unused (a_state_legal).
  typedef enum logic [1:0] {
    WdMonitor  = 2'd0,
    WdRecover  = 2'd1,
    WdDisabled = 2'd2
  } wd_state_e;

endpackage
