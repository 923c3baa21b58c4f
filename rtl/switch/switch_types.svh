// Types of the switch that depend on its shape: the number of ports and the
// cells of an input buffer (a cell index, a port index or mask, and the
// streams between switch_top, switch_ingress, switch_egress and
// switch_tables that carry them). A package cannot hold them (its types
// cannot see a module's parameters), so each module declares them in its
// parameter list from its own NumPorts / BufCells, each as
// `localparam type <name> = <macro>` with the macro below: one definition,
// the same types on both sides of every port. The macros name the module's
// own PortW / port_t / port_mask_t / cell_t, so a module declares those (as
// plain vectors: logic [PortW-1:0], logic [NumPorts-1:0], logic [CellW-1:0])
// before the structs that use them. The shape-free types are in switch_pkg.
// A macro per declaration, not one macro for the whole list, keeps every
// module header parsable by tools that do not expand macros (the style gate).
//
// The streams (docs/switch-datapath.md, "switch_top RTL"), a data struct each
// with its valid (and ready where the stream has back-pressure) as separate
// one-bit ports:
//   lookup    ingress -> tables: the header's LIDs and flow label
//             (switch_pkg::lk_req_t), valid when the packet uses the answer
//             (GROUP_SKIPS counts it); the answer lk_rsp_t comes back in the
//             same cycle.
//   pend      ingress -> engine (switch_top): a complete packet waiting for
//             its copies, valid/ready (ready pops it after its last copy).
//   copy      engine -> ingress: one copy per cycle, valid only.
//   offer     egress -> top: the grant an output offers (input, queue),
//             valid/ready (ready = the top accepted it: the copy starts).
//   pop       top -> ingress: per output o, take the head of VOQ[o][q], valid
//             only (several outputs in one cycle only in a shared read of a
//             one-flit packet); the answer pop_rsp_t per output (its slot and
//             that copy's header patch) in the same cycle.
//   rd        egress -> ingress (through the top): the read port, one cell
//             per cycle while an output streams a copy (the sharers of a
//             one-flit packet read its one cell); `last` ends a copy and
//             returns its reference on `slot`, the top counts the copies
//             ending. The flit and the next cell come back in the same cycle
//             (rd_rsp_t).
// Field order puts the wide member (a flit, a header) at bit 0, so reading
// it out of the struct is a word-aligned copy in the verilated model.

`ifndef SWITCH_TYPES_SVH
`define SWITCH_TYPES_SVH

// Widths: a port index (at least one bit), a cell index, a cell count.
`define SF_SWITCH_PORT_W(__num_ports) (((__num_ports) > 1) ? $clog2(__num_ports) : 1)
`define SF_SWITCH_CELL_W(__buf_cells) $clog2(__buf_cells)
`define SF_SWITCH_CNT_W(__buf_cells) $clog2((__buf_cells) + 1)

// lookup answer: hit, the output ports (port_mask_t), and whether a port
// group skipped a member that is out of service (GROUP_SKIPS).
`define SF_SWITCH_LK_RSP_T struct packed { \
    logic       hit;                       \
    logic       skip;                      \
    port_mask_t mask;                      \
  }

// offer: the input and queue an output grants (port_t).
`define SF_SWITCH_OFFER_T struct packed { \
    port_t             in;               \
    switch_pkg::prio_t q;                \
  }

// pend: a complete packet waiting for its copies (cell_t, port_mask_t).
`define SF_SWITCH_PEND_T struct packed { \
    cell_t                     slot;    \
    port_mask_t                mask;    \
    syncfab_fmt_pkg::pkt_hdr_t hdr;     \
  }

// pop answer: the slot and header patch of the popped copy (cell_t).
`define SF_SWITCH_POP_RSP_T struct packed { \
    cell_t                  slot;          \
    switch_pkg::hdr_patch_t patch;         \
  }

// read request: a cell, the copy's last beat, the slot it returns (cell_t).
`define SF_SWITCH_RD_REQ_T struct packed { \
    cell_t addr;                          \
    logic  last;                          \
    cell_t slot;                          \
  }

// read answer: the next cell and the flit (cell_t).
`define SF_SWITCH_RD_RSP_T struct packed { \
    cell_t             next;              \
    switch_pkg::flit_t data;              \
  }

`endif  // SWITCH_TYPES_SVH
