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

std::unique_ptr<NicNode> make_nic(Backend b, TestContext& ctx, const std::string& name);
// max_pkt_flits: the longest packet the fabric carries (a model switch's lags).
std::unique_ptr<SwitchNode> make_switch(Backend b, TestContext& ctx, const std::string& name,
                                        unsigned max_pkt_flits = 1);

}  // namespace syncfab::tb::system
