// The one place that turns a Backend into a node: the fabric asks here for
// each NIC and switch, so a new backend (the golden models: cpp-model's
// SwitchModel, the barrier engine on its pin-level link NetIn/NetOut) is a
// new case here and a new NicNode/SwitchNode, never a change to the fabric.
#pragma once

#include <memory>
#include <string>

#include "node.hpp"

namespace syncfab::tb::system {

// std::invalid_argument naming the node for a backend this build lacks.
std::unique_ptr<NicNode> make_nic(Backend b, TestContext& ctx, const std::string& name);
std::unique_ptr<SwitchNode> make_switch(Backend b, TestContext& ctx, const std::string& name);

}  // namespace syncfab::tb::system
