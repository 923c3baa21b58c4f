// The probes of a verilated switch_top's ports, from its root class (the
// <class>___024root of vl_switch_top8 or vl_switch_top16): Verilator names a
// member after the generate index it sits in, so each port index is spelled
// out; an index past the switch's port count is in a branch the template
// discards. Included only by the file that includes that root's header.
#pragma once

#include <array>

#include "switch_probe.hpp"

namespace syncfab::tb::swfab {

// NOLINTBEGIN(cppcoreguidelines-macro-usage): one name per port index; the
// index is part of the Verilator member name.
#define SF_PROBE_PORT(P)                                                                                     \
  ports[P] = PortProbe {                                                                                     \
    &r.switch_top__DOT__gen_egress__BRA__##P##__KET____DOT__u_egress__DOT__xoff_rx,                          \
        &r.switch_top__DOT__gen_egress__BRA__##P##__KET____DOT__u_egress__DOT__stop_o,                       \
        r.switch_top__DOT__gen_ingress__BRA__##P##__KET____DOT__u_ingress__DOT__occ_q.data(),                \
        &r.switch_top__DOT__gen_ingress__BRA__##P##__KET____DOT__u_ingress__DOT__free_q,                     \
        &r.switch_top__DOT__gen_egress__BRA__##P##__KET____DOT__u_egress__DOT__u_pfc_watchdog__DOT__state_q, \
        r.switch_top__DOT__u_counters__DOT__gen_port__BRA__##P##__KET____DOT__cnt_q.data()                   \
  }

template <unsigned N, class Root>
std::array<PortProbe, N> probe_ports_of(const Root& r) {
  static_assert(N == 8 || N == 16, "switch_top is verilated with 8 or 16 ports");
  std::array<PortProbe, N> ports{};
  SF_PROBE_PORT(0);
  SF_PROBE_PORT(1);
  SF_PROBE_PORT(2);
  SF_PROBE_PORT(3);
  SF_PROBE_PORT(4);
  SF_PROBE_PORT(5);
  SF_PROBE_PORT(6);
  SF_PROBE_PORT(7);
  if constexpr (N > 8) {
    SF_PROBE_PORT(8);
    SF_PROBE_PORT(9);
    SF_PROBE_PORT(10);
    SF_PROBE_PORT(11);
    SF_PROBE_PORT(12);
    SF_PROBE_PORT(13);
    SF_PROBE_PORT(14);
    SF_PROBE_PORT(15);
  }
  return ports;
}
#undef SF_PROBE_PORT
// NOLINTEND(cppcoreguidelines-macro-usage)

}  // namespace syncfab::tb::swfab
