// Assertion macros of the NIC barrier engine (rtl/nic/).
//
// The engine's rules are written with these instead of the concurrent
// SF_ASSERT macros of rtl/common/syncfab_assert.svh, for simulation speed
// only. For every signal a concurrent property reads, Verilator 5.006 keeps a
// sampled copy and refreshes it at the start of every model evaluation (three
// per clock cycle in the harness: the input change and both clock edges), and
// it evaluates every property in full in every cycle, consequent included.
// With some 150 rules over per-context tables that was about half of
// nic_top's simulation time.
//
// Here each rule is an immediate assertion in a process clocked by clk_i. It
// reads the signals as they are at the rising edge, before the edge's updates:
// the values a concurrent property samples, since inputs settle before the
// edge. An implication's consequent is evaluated only in the cycles its
// antecedent holds, so a costly consequent (a scan of a table) costs nothing
// in the other cycles.
//
// The contract is that of SF_ASSERT: a named rule (the name, `a_` prefix, is
// the assertion's label; inside a generate loop the loop's block name keeps
// it unique), off while !rst_ni (through a copy of the reset, <name>_en: see
// syncfab_assert.svh for why), and a failure is "SVA <name> failed:
// <property>" through $error, which fails the C++ harness and cocotb.
//
//   `NIC_ASSERT(name, prop)            prop holds at every rising edge of clk_i
//   `NIC_ASSERT_IMP(name, ante, cons)  ante |-> cons
//   `NIC_ASSERT_NXT(name, ante, cons)  ante |=> cons (cons one edge later;
//                                      disabled if reset is asserted at either)
//   `NIC_ASSERT_ONEHOT0(name, sig)     at most one bit of sig is set
//   `NIC_ASSERT_KNOWN(name, sig)       sig has no X/Z
//   `NIC_ASSERT_FORALL(name, gate, i, n, ante, cons)
//                                      gate && ante |-> cons for every
//                                      i in 0 .. n-1 (i: the loop variable,
//                                      an int unsigned, in ante and cons)
//
// NIC_ASSERT_FORALL is one rule over a vector (a per-context table, say),
// instead of a generate loop of one rule per element: a generate loop makes n
// processes, each testing the enable and its antecedent in every cycle; here
// one process tests the enable and `gate` (an antecedent shared by every
// element, 1'b1 if none) once, and only then visits the elements. A failure
// names the element.
//
// $past and $stable may be used in prop/cons: Verilator keeps a registered
// copy of their argument (sampled, so keep those arguments narrow).
// Synthesis defines SYNTHESIS and the macros expand to nothing.

`ifndef NIC_ASSERT_SVH
`define NIC_ASSERT_SVH

`ifndef SYNTHESIS

`define NIC_ASSERT(__name, __prop)                                                  \
  logic __name``_en;                                                                \
  assign __name``_en = rst_ni;                                                      \
  always_ff @(posedge clk_i) begin                                                  \
    if (__name``_en) begin                                                          \
      __name: assert (__prop)                                                       \
        else $error("SVA %s failed: %s", `"__name`", `"__prop`");                 \
    end                                                                             \
  end

`define NIC_ASSERT_IMP(__name, __ante, __cons)                                      \
  logic __name``_en;                                                                \
  assign __name``_en = rst_ni;                                                      \
  always_ff @(posedge clk_i) begin                                                  \
    if (__name``_en && (__ante)) begin                                              \
      __name: assert (__cons)                                                       \
        else $error("SVA %s failed: %s |-> %s", `"__name`", `"__ante`", `"__cons`"); \
    end                                                                             \
  end

// The antecedent is registered: <name>_armed_q says it held at the last edge.
`define NIC_ASSERT_NXT(__name, __ante, __cons)                                      \
  logic __name``_en, __name``_armed_q;                                              \
  assign __name``_en = rst_ni;                                                      \
  always_ff @(posedge clk_i or negedge rst_ni) begin                                \
    if (!rst_ni) begin                                                              \
      __name``_armed_q <= 1'b0;                                                     \
    end else begin                                                                  \
      __name``_armed_q <= __ante;                                                   \
    end                                                                             \
  end                                                                               \
  always_ff @(posedge clk_i) begin                                                  \
    if (__name``_en && __name``_armed_q) begin                                      \
      __name: assert (__cons)                                                       \
        else $error("SVA %s failed: %s |=> %s", `"__name`", `"__ante`", `"__cons`"); \
    end                                                                             \
  end

`define NIC_ASSERT_FORALL(__name, __gate, __i, __n, __ante, __cons)                 \
  logic __name``_en;                                                                \
  assign __name``_en = rst_ni;                                                      \
  always_ff @(posedge clk_i) begin : __name``_forall                                \
    int unsigned __i;                                                               \
    if (__name``_en && (__gate)) begin                                              \
      for (__i = 0; __i < (__n); __i++) begin                                       \
        if (__ante) begin                                                           \
          __name: assert (__cons)                                                   \
            else $error("SVA %s failed: %s = %0d: %s && %s |-> %s", `"__name`",      \
                        `"__i`", __i, `"__gate`", `"__ante`", `"__cons`");          \
        end                                                                         \
      end                                                                           \
    end                                                                             \
  end

`define NIC_ASSERT_ONEHOT0(__name, __sig) \
  `NIC_ASSERT(__name, $onehot0(__sig))

`define NIC_ASSERT_KNOWN(__name, __sig) \
  `NIC_ASSERT(__name, !$isunknown(__sig))

`else  // SYNTHESIS

`define NIC_ASSERT(__name, __prop)
`define NIC_ASSERT_IMP(__name, __ante, __cons)
`define NIC_ASSERT_NXT(__name, __ante, __cons)
`define NIC_ASSERT_ONEHOT0(__name, __sig)
`define NIC_ASSERT_KNOWN(__name, __sig)
`define NIC_ASSERT_FORALL(__name, __gate, __i, __n, __ante, __cons)

`endif  // SYNTHESIS

`endif  // NIC_ASSERT_SVH
