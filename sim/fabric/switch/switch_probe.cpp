#include "switch_probe.hpp"

#include <Vswitch_top.h>
#include <Vswitch_top___024root.h>

#include "switch_probe_ports.hpp"

namespace syncfab::tb::swfab {

std::array<PortProbe, 8> probe_ports(Vswitch_top& dut) { return probe_ports_of<8>(*dut.rootp); }

std::uint32_t counter_value(Vswitch_top& dut, unsigned port, unsigned prio, unsigned kind) {
  return probe_ports(dut).at(port).counter(prio, kind);
}

}  // namespace syncfab::tb::swfab
