#include "switch_probe.hpp"

#include <Vswitch_top___024root.h>

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

std::array<PortProbe, 8> probe_ports(Vswitch_top& dut) {
  const Vswitch_top___024root& r = *dut.rootp;
  std::array<PortProbe, 8> ports{};
  SF_PROBE_PORT(0);
  SF_PROBE_PORT(1);
  SF_PROBE_PORT(2);
  SF_PROBE_PORT(3);
  SF_PROBE_PORT(4);
  SF_PROBE_PORT(5);
  SF_PROBE_PORT(6);
  SF_PROBE_PORT(7);
  return ports;
}
#undef SF_PROBE_PORT

std::uint32_t counter_value(Vswitch_top& dut, unsigned port, unsigned prio, unsigned kind) {
  return probe_ports(dut).at(port).counter(prio, kind);
}
// NOLINTEND(cppcoreguidelines-macro-usage)

}  // namespace syncfab::tb::swfab
