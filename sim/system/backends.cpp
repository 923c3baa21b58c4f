#include "backends.hpp"

#include <stdexcept>
#include <string>

#include "model_nic.hpp"
#include "model_switch.hpp"
#include "rtl_nic.hpp"
#include "rtl_switch.hpp"
#include "syncfab/hw/switch_regs.hpp"

namespace syncfab::tb::system {

namespace {

constexpr unsigned kPorts8 = RtlSwitchShape<Vswitch_top>::kPorts;
constexpr unsigned kPorts16 = RtlSwitchShape<Vswitch_top16>::kPorts;
static_assert(kPorts16 <= hw::switch_regs::kMaxPorts, "the driver reaches every PORT block");

}  // namespace

std::unique_ptr<NicNode> make_nic(Backend b, TestContext& ctx, const std::string& name,
                                  bool data_path) {
  if (b == Backend::kModel) {
    return std::make_unique<ModelNic>(ctx, name, data_path);
  }
  return std::make_unique<RtlNic>(ctx, name);
}

unsigned switch_ports_for(unsigned ports) {
  if (ports <= kPorts8) {
    return kPorts8;
  }
  return ports <= kPorts16 ? kPorts16 : 0;
}

std::unique_ptr<SwitchNode> make_switch(Backend b, TestContext& ctx, const std::string& name,
                                        unsigned ports, unsigned max_pkt_flits) {
  const unsigned n = switch_ports_for(ports);
  if (n == 0) {
    throw std::invalid_argument(
        "switch " + name + " has " + std::to_string(ports) + " ports; " +
        (b == Backend::kModel ? "the switch model" : "the verilated switch") + " has " +
        std::to_string(kPorts8) + " or " + std::to_string(kPorts16) +
        " (vl_switch_top8, vl_switch_top16)");
  }
  if (b == Backend::kModel) {
    return std::make_unique<ModelSwitch>(ctx, name, n, max_pkt_flits);
  }
  if (n == kPorts16) {
    return std::make_unique<RtlSwitch<Vswitch_top16>>(ctx, name);
  }
  return std::make_unique<RtlSwitch<Vswitch_top>>(ctx, name);
}

}  // namespace syncfab::tb::system
