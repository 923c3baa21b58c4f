// Types of the switch that depend on its shape: the number of ports and the
// cells of an input buffer (a cell index, a port index or mask, and the
// streams between switch_top, switch_ingress, switch_egress and
// switch_tables that carry them). A package cannot hold them (its types
// cannot see a module's parameters), so each module declares them in its
// parameter list from its own NumPorts / BufCells with these macros: one
// definition, the same types on both sides of every port. The shape-free
// types are in switch_pkg, which the macros use (import it first).
//
//   `SF_SWITCH_PORT_TYPES(NumPorts)            PortW, port_t, port_mask_t,
//                                              lk_rsp_t, offer_t, pop_req_t
//   `SF_SWITCH_BUF_TYPES(BufCells)             CellW, CntW, cell_t, cnt_t,
//                                              pend_t, copy_t, pop_rsp_t,
//                                              rd_req_t, rd_rsp_t
//
// Each expands to localparam declarations separated by commas, without a
// trailing one: write it last in a parameter list (or before a comma); the
// buffer types use the port types, so they come second.
//
// The streams (docs/switch-datapath.md, "switch_top RTL"), a data struct each
// with its valid (and ready where the stream has back-pressure) as separate
// one-bit ports:
//   lookup    ingress -> tables: the header's dst_lid (lid_t); the answer
//             lk_rsp_t comes back in the same cycle.
//   pend      ingress -> engine (switch_top): a complete packet waiting for
//             its copies, valid/ready (ready pops it after its last copy).
//   copy      engine -> ingress: one copy per cycle, valid only.
//   offer     egress -> top: the grant an output offers (input, queue),
//             valid/ready (ready = the top accepted it: the copy starts).
//   pop       top -> ingress: take the head of VOQ[port][q], valid only; the
//             answer pop_rsp_t (its slot and header patch) in the same cycle.
//   rd        egress -> ingress (through the top): the read port, one cell
//             per cycle while an output streams a copy; `last` ends the copy
//             and returns its reference on `slot`. The flit and the next
//             cell come back in the same cycle (rd_rsp_t).
// Field order puts the wide member (a flit, a header) at bit 0, so reading
// it out of the struct is a word-aligned copy in the verilated model.

`ifndef SWITCH_TYPES_SVH
`define SWITCH_TYPES_SVH

`define SF_SWITCH_PORT_TYPES(__num_ports)                                        \
  localparam int unsigned PortW = ((__num_ports) > 1) ? $clog2(__num_ports) : 1, \
  localparam type port_t = logic [PortW-1:0],                                    \
  localparam type port_mask_t = logic [(__num_ports)-1:0],                       \
  localparam type lk_rsp_t = struct packed {                                     \
    logic       hit;                                                             \
    port_mask_t mask;                                                            \
  },                                                                             \
  localparam type offer_t = struct packed {                                      \
    port_t                 in;                                                   \
    switch_pkg::prio_t     q;                                                    \
  },                                                                             \
  localparam type pop_req_t = struct packed {                                    \
    port_t                 port;                                                 \
    switch_pkg::prio_t     q;                                                    \
  }

`define SF_SWITCH_BUF_TYPES(__buf_cells)                                         \
  localparam int unsigned CellW = $clog2(__buf_cells),                           \
  localparam int unsigned CntW = $clog2((__buf_cells) + 1),                      \
  localparam type cell_t = logic [CellW-1:0],                                    \
  localparam type cnt_t = logic [CntW-1:0],                                      \
  localparam type pend_t = struct packed {                                       \
    cell_t                       slot;                                           \
    port_mask_t                  mask;                                           \
    syncfab_fmt_pkg::pkt_hdr_t   hdr;                                            \
  },                                                                             \
  localparam type copy_t = struct packed {                                       \
    cell_t                   slot;                                               \
    port_t                   port;                                               \
    logic                    keep;                                               \
    switch_pkg::hdr_patch_t  patch;                                              \
  },                                                                             \
  localparam type pop_rsp_t = struct packed {                                    \
    cell_t                   slot;                                               \
    switch_pkg::hdr_patch_t  patch;                                              \
  },                                                                             \
  localparam type rd_req_t = struct packed {                                     \
    cell_t addr;                                                                 \
    logic  last;                                                                 \
    cell_t slot;                                                                 \
  },                                                                             \
  localparam type rd_rsp_t = struct packed {                                     \
    cell_t               next;                                                   \
    switch_pkg::flit_t   data;                                                   \
  }

`endif  // SWITCH_TYPES_SVH
