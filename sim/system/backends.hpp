// The one place that turns a Backend into a node: the fabric asks here for
// each NIC and switch, so a backend (verilated RTL: rtl_nic, rtl_switch; the
// golden models: model_nic, the barrier engine on its pin-level link, and
// model_switch, cpp-model's SwitchModel) is a case here and a
// NicNode/SwitchNode, never a change to the fabric.
#pragma once

#include <memory>
#include <string>

#include "node.hpp"

namespace syncfab::tb::system {

// data_path: a golden-model NIC with the data path (the verilated one always has it).
std::unique_ptr<NicNode> make_nic(Backend b, TestContext& ctx, const std::string& name,
                                  bool data_path = false);

// The switch_top port count a switch with `ports` SM data ports runs on: the
// smallest verilated shape that holds it, 8 (vl_switch_top8) or 16
// (vl_switch_top16), for either backend, so that an RTL fabric and its golden
// fabric have the same switches; 0 when no shape holds it.
unsigned switch_ports_for(unsigned ports);

// A switch of switch_ports_for(ports) ports (std::invalid_argument naming
// the switch and its count when that is 0). max_pkt_flits: the longest
// packet the fabric carries (a model switch's lags).
std::unique_ptr<SwitchNode> make_switch(Backend b, TestContext& ctx, const std::string& name,
                                        unsigned ports, unsigned max_pkt_flits = 1);

}  // namespace syncfab::tb::system
