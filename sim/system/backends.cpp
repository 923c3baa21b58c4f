#include "backends.hpp"

#include <stdexcept>

#include "rtl_nic.hpp"
#include "rtl_switch.hpp"

namespace syncfab::tb::system {

namespace {

[[noreturn]] void no_backend(const char* what, const std::string& name) {
  throw std::invalid_argument(std::string(what) + " " + name +
                              ": no golden-model backend in this build (Backend::kRtl only)");
}

}  // namespace

std::unique_ptr<NicNode> make_nic(Backend b, TestContext& ctx, const std::string& name) {
  if (b != Backend::kRtl) {
    no_backend("NIC", name);
  }
  return std::make_unique<RtlNic>(ctx, name);
}

std::unique_ptr<SwitchNode> make_switch(Backend b, TestContext& ctx, const std::string& name) {
  if (b != Backend::kRtl) {
    no_backend("switch", name);
  }
  return std::make_unique<RtlSwitch>(ctx, name);
}

}  // namespace syncfab::tb::system
