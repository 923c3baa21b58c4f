#include "backends.hpp"

#include "model_nic.hpp"
#include "model_switch.hpp"
#include "rtl_nic.hpp"
#include "rtl_switch.hpp"

namespace syncfab::tb::system {

std::unique_ptr<NicNode> make_nic(Backend b, TestContext& ctx, const std::string& name) {
  if (b == Backend::kModel) {
    return std::make_unique<ModelNic>(ctx, name);
  }
  return std::make_unique<RtlNic>(ctx, name);
}

std::unique_ptr<SwitchNode> make_switch(Backend b, TestContext& ctx, const std::string& name,
                                        unsigned max_pkt_flits) {
  if (b == Backend::kModel) {
    return std::make_unique<ModelSwitch>(ctx, name, max_pkt_flits);
  }
  return std::make_unique<RtlSwitch>(ctx, name);
}

}  // namespace syncfab::tb::system
