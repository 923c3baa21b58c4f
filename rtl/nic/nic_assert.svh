// Assertion macros of the NIC barrier engine (rtl/nic/): the NIC's names for
// the immediate assertions of rtl/common/syncfab_assert.svh (SF_ASSERT_IMM*),
// which say why they, not the concurrent SF_ASSERT, check the engine's rules:
// simulation speed (Verilator samples every signal a concurrent property reads
// at every evaluation, and evaluates every property in full in every cycle).
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
// Contract, as SF_ASSERT's: a named rule (the name, `a_` prefix, is the
// assertion's label), off while !rst_ni, a failure is "SVA <name> failed:
// <property>" through $error. Synthesis defines SYNTHESIS and the macros
// expand to nothing. Include syncfab_assert.svh first.

`ifndef NIC_ASSERT_SVH
`define NIC_ASSERT_SVH

`define NIC_ASSERT(__name, __prop) `SF_ASSERT_IMM(__name, __prop)
`define NIC_ASSERT_IMP(__name, __ante, __cons) `SF_ASSERT_IMM_IMP(__name, __ante, __cons)
`define NIC_ASSERT_NXT(__name, __ante, __cons) `SF_ASSERT_IMM_NXT(__name, __ante, __cons)
`define NIC_ASSERT_ONEHOT0(__name, __sig) `SF_ASSERT_IMM_ONEHOT0(__name, __sig)
`define NIC_ASSERT_KNOWN(__name, __sig) `SF_ASSERT_IMM_KNOWN(__name, __sig)
`define NIC_ASSERT_FORALL(__name, __gate, __i, __n, __ante, __cons) \
  `SF_ASSERT_IMM_FORALL(__name, __gate, __i, __n, __ante, __cons)

`endif  // NIC_ASSERT_SVH
