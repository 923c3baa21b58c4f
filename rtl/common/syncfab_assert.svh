// syncfab assertion macros.
//
// Every protocol rule in the RTL is a named assertion written with one of these
// macros (a concurrent one, or its immediate form SF_ASSERT_IMM* below), so
// that rules read the same everywhere, name themselves in the failure message,
// and stay ON in every simulator we use:
//   * Verilator (5.006) evaluates them when built with --assert (the project's
//     build, cocotb and lint always pass it). A failing assertion prints
//     "%Error: <file>:<line>: Assertion failed in <instance>.<name>: SVA <name>
//     failed: <property>"; $error makes the C++ harness and cocotb fail the test.
//   * Synthesis defines SYNTHESIS and the clocked checks expand to nothing.
//
// What Verilator 5.006 accepts inside a property (measured): `|->`, `|=>`,
// $past, $rose, $fell, $stable, $onehot, $onehot0, $countones, $isunknown and
// `disable iff`. `##n` delays are a syntax error; sequence repetition
// (`[*n]`, `[->n]`) and s_eventually are not supported. Write multi-cycle rules
// with $past or with helper flops instead.
//
// Macros (no trailing semicolon; the name becomes the assertion label and is
// conventionally prefixed `a_`; inside a generate loop the loop's block name
// keeps the labels unique):
//   `SF_ASSERT(name, prop)                   clocked by clk_i, off while !rst_ni
//   `SF_ASSERT_CLK(name, prop, clk, rst_n)   explicit clock / active-low reset
//   `SF_ASSERT_NEVER(name, prop)             prop must never hold
//   `SF_ASSERT_KNOWN(name, sig)              sig has no X/Z out of reset
//   `SF_ASSERT_ONEHOT0(name, sig)            at most one bit of sig is set
//   `SF_ASSERT_INIT(name, cond)              checked once at time 0
//   `SF_STATIC_ASSERT(name, cond)            elaboration-time check on
//                                            parameters: a bad parameter value
//                                            fails the build, naming the check
//
// Why reset disables the clocked checks: during reset the flops hold reset
// values but inputs may be anything, so rules about traffic mean nothing there.
// A rule that must hold in reset too can use SF_ASSERT_CLK with rst_n = 1'b1.
//
// The same rules as immediate assertions in a process clocked by clk_i, for
// blocks that Verilator must simulate fast (the NIC and the cells inside it):
//   `SF_ASSERT_IMM(name, prop)            prop holds at every rising edge
//   `SF_ASSERT_IMM_IMP(name, ante, cons)  ante |-> cons
//   `SF_ASSERT_IMM_NXT(name, ante, cons)  ante |=> cons (cons one edge later;
//                                         disabled if reset is asserted at
//                                         either edge)
//   `SF_ASSERT_IMM_ONEHOT0(name, sig)     at most one bit of sig is set
//   `SF_ASSERT_IMM_KNOWN(name, sig)       sig has no X/Z
//   `SF_ASSERT_IMM_FORALL(name, gate, i, n, ante, cons)
//                                         gate && ante |-> cons for every i in
//                                         0 .. n-1 (i: the loop variable, an
//                                         int unsigned, in ante and cons)
// Why: for every signal a concurrent property reads, Verilator 5.006 keeps a
// sampled copy and refreshes it at the start of every model evaluation (three
// per clock cycle in the harness: the input change and both clock edges), and
// it evaluates every property in full in every cycle, consequent included
// (about half of nic_top's simulation time once, with some 150 rules). An
// immediate assertion in an always_ff reads the signals as they are at the
// rising edge, before the edge's updates: the values a concurrent property
// samples, since inputs settle before the edge. Its consequent is evaluated
// only in the cycles its antecedent holds. Same contract otherwise: a named
// rule, off while !rst_ni (through <name>_en), "SVA <name> failed: ..." via
// $error. No `##`, `|->` or `|=>` inside prop/cons; $past and $stable work but
// keep a sampled copy of their argument (a register of the previous value is
// cheaper). SF_ASSERT_IMM_FORALL is one rule over a vector (one process that
// tests gate once, then visits the elements) instead of a generate loop of n
// processes; a failure names the element.
//
// Cover points, for the corners a random test must reach:
//   `SF_COVER(name, prop)                 counts the rising edges of clk_i at
//                                         which prop holds, off while !rst_ni
// The name is the cover point's label, conventionally prefixed `c_`. A cover
// is measured only in a model verilated with --coverage-user (Verilator
// 5.006 drops every cover statement without it, so a model built for speed
// carries none): the count lands in the coverage database that
// VerilatedContext::coveragep()->write() saves (coverage.dat, which the
// tool verilator_coverage reads), one line per cover point with its label as
// the comment and the instances of a module summed. A test that needs corners
// fails on the points counted 0 times (tests/rtl/switch,
// switch_cover_test.cpp). Expands to nothing under SYNTHESIS.
//
// Why each clocked check copies its reset into `<name>_en`: `disable iff
// (!rst_ni)` is a synchronous use of rst_ni, and with the asynchronous reset
// flops of the same module Verilator -Wall reports SYNCASYNCNET on rst_ni. That
// warning is worth keeping for real logic (it catches a reset used both ways),
// so instead of waiving it the assertion samples a separate net (measured on
// 5.006, --lint-only and --cc: the check does not look through a continuous
// assignment).

`ifndef SYNCFAB_ASSERT_SVH
`define SYNCFAB_ASSERT_SVH

`ifndef SYNTHESIS

`define SF_ASSERT_CLK(__name, __prop, __clk, __rst_n)                             \
  logic __name``_en;                                                             \
  assign __name``_en = (__rst_n);                                                \
  __name: assert property (@(posedge __clk) disable iff (!__name``_en) (__prop))  \
    else $error("SVA %s failed: %s", `"__name`", `"__prop`");

`define SF_ASSERT(__name, __prop) \
  `SF_ASSERT_CLK(__name, __prop, clk_i, rst_ni)

`define SF_ASSERT_NEVER(__name, __prop) \
  `SF_ASSERT_CLK(__name, !(__prop), clk_i, rst_ni)

`define SF_ASSERT_KNOWN(__name, __sig) \
  `SF_ASSERT_CLK(__name, !$isunknown(__sig), clk_i, rst_ni)

`define SF_ASSERT_ONEHOT0(__name, __sig) \
  `SF_ASSERT_CLK(__name, $onehot0(__sig), clk_i, rst_ni)

`define SF_ASSERT_INIT(__name, __cond)                                      \
  initial begin : __name                                                   \
    assert (__cond) else $error("SVA %s failed: %s", `"__name`", `"__cond`"); \
  end

`define SF_ASSERT_IMM(__name, __prop)                                               \
  logic __name``_en;                                                                \
  assign __name``_en = rst_ni;                                                      \
  always_ff @(posedge clk_i) begin                                                  \
    if (__name``_en) begin                                                          \
      __name: assert (__prop)                                                       \
        else $error("SVA %s failed: %s", `"__name`", `"__prop`");                 \
    end                                                                             \
  end

`define SF_ASSERT_IMM_IMP(__name, __ante, __cons)                                   \
  logic __name``_en;                                                                \
  assign __name``_en = rst_ni;                                                      \
  always_ff @(posedge clk_i) begin                                                  \
    if (__name``_en && (__ante)) begin                                              \
      __name: assert (__cons)                                                       \
        else $error("SVA %s failed: %s |-> %s", `"__name`", `"__ante`", `"__cons`"); \
    end                                                                             \
  end

// The antecedent is registered: <name>_armed_q says it held at the last edge.
`define SF_ASSERT_IMM_NXT(__name, __ante, __cons)                                   \
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

`define SF_ASSERT_IMM_FORALL(__name, __gate, __i, __n, __ante, __cons)              \
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

`define SF_ASSERT_IMM_ONEHOT0(__name, __sig) \
  `SF_ASSERT_IMM(__name, $onehot0(__sig))

`define SF_COVER(__name, __prop)                                                    \
  logic __name``_en;                                                                \
  assign __name``_en = rst_ni;                                                      \
  __name: cover property (@(posedge clk_i) disable iff (!__name``_en) (__prop));

`define SF_ASSERT_IMM_KNOWN(__name, __sig) \
  `SF_ASSERT_IMM(__name, !$isunknown(__sig))

`else  // SYNTHESIS

`define SF_ASSERT_CLK(__name, __prop, __clk, __rst_n)
`define SF_ASSERT(__name, __prop)
`define SF_ASSERT_NEVER(__name, __prop)
`define SF_ASSERT_KNOWN(__name, __sig)
`define SF_ASSERT_ONEHOT0(__name, __sig)
`define SF_ASSERT_INIT(__name, __cond)
`define SF_ASSERT_IMM(__name, __prop)
`define SF_ASSERT_IMM_IMP(__name, __ante, __cons)
`define SF_ASSERT_IMM_NXT(__name, __ante, __cons)
`define SF_ASSERT_IMM_FORALL(__name, __gate, __i, __n, __ante, __cons)
`define SF_ASSERT_IMM_ONEHOT0(__name, __sig)
`define SF_ASSERT_IMM_KNOWN(__name, __sig)
`define SF_COVER(__name, __prop)

`endif  // SYNTHESIS

// Parameter checks stay in synthesis too: a bad parameter is a bad netlist.
// (%m is not available at elaboration time; Verilator names the instance.)
`define SF_STATIC_ASSERT(__name, __cond)                                   \
  if (!(__cond)) begin : __name                                           \
    $error("parameter check %s failed: %s", `"__name`", `"__cond`");      \
  end

`endif  // SYNCFAB_ASSERT_SVH
