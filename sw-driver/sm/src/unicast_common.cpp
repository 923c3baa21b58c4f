#include "unicast_common.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::sm::detail {

LidsBySwitch lids_by_switch(const Fabric& f) {
  LidsBySwitch by;
  const std::size_t n = f.switch_count();
  std::vector<SwitchIdx> sw_of(f.dest_count(), kNoSwitch);
  by.offset.assign(n + 1, 0);
  for (std::size_t l = 1; l < sw_of.size(); ++l) {
    const LidOwner o = f.dest_owner(static_cast<Dest>(l));
    if (o.node == kNoNode) {
      continue;
    }
    SwitchIdx t = kNoSwitch;
    if (f.is_switch(o.node)) {
      t = f.switch_index(o.node);
    } else {
      const PortPeer p = f.peer(o.node, o.port);
      if (p.connected() && f.is_switch(p.node)) {
        t = f.switch_index(p.node);
      }
    }
    sw_of[l] = t;
    if (t != kNoSwitch) {
      ++by.offset[t + 1];
    }
  }
  for (std::size_t t = 0; t < n; ++t) {
    by.offset[t + 1] += by.offset[t];
  }
  by.lids.resize(by.offset[n]);
  std::vector<std::uint32_t> fill(by.offset.begin(), by.offset.end() - 1);
  for (std::size_t l = 1; l < sw_of.size(); ++l) {
    if (sw_of[l] != kNoSwitch) {
      by.lids[fill[sw_of[l]]++] = static_cast<Dest>(l);
    }
  }
  return by;
}

void route_local(const Fabric& f, SwitchIdx t, const LidsBySwitch& by, Lft& lft) {
  for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
    const Dest d = by.lids[i];
    const LidOwner o = f.dest_owner(d);
    lft.set(t, d, f.is_switch(o.node) ? PortNum{0} : f.peer(o.node, o.port).port);
  }
}

void check_group_request(GroupMode mode, const PortGroups* groups) {
  if (mode != GroupMode::kOff && groups == nullptr) {
    throw std::invalid_argument("port groups (" + std::string(group_mode_name(mode)) +
                                ") asked for without a PortGroups to fill");
  }
}

}  // namespace syncfab::sm::detail
