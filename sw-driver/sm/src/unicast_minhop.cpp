#include "syncfab/sm/unicast.hpp"
#include "unicast_common.hpp"

namespace syncfab::sm {

Lft route_minhop(const MinHop& mh, GroupMode mode, PortGroups* groups) {
  detail::check_group_request(mode, groups);
  const Fabric& f = mh.fabric();
  Lft lft(f);
  const std::size_t n = f.switch_count();
  const detail::LidsBySwitch by = detail::lids_by_switch(f);
  std::vector<SwitchIdx> lid_switch(lft.dest_count(), kNoSwitch);
  for (SwitchIdx t = 0; t < n; ++t) {
    for (std::uint32_t i = by.offset[t]; i < by.offset[t + 1]; ++i) {
      lid_switch[by.lids[i]] = t;
    }
  }
  // Per source switch: candidate ports toward each destination switch, built
  // when first needed (LIDs of one switch share them).
  std::vector<std::uint32_t> stamp(n, UINT32_MAX);
  std::vector<std::vector<PortNum>> cand(n);
  std::vector<std::vector<SwitchIdx>> cand_peer(n);  // the switch each candidate leads to
  std::vector<PortNum> lag;
  std::vector<std::uint32_t> count;
  std::vector<std::pair<PortNum, SwitchIdx>> links;  // switch ports and their peers
  for (SwitchIdx s = 0; s < n; ++s) {
    const NodeId node = f.switch_node(s);
    count.assign(static_cast<std::size_t>(f.num_ports(node)) + 1, 0);
    links.clear();
    for (int p = 1; p <= f.num_ports(node); ++p) {
      const PortPeer o = f.peer(node, static_cast<PortNum>(p));
      if (o.connected() && f.is_switch(o.node)) {
        links.emplace_back(static_cast<PortNum>(p), f.switch_index(o.node));
      }
    }
    detail::route_local(f, s, by, lft);
    const auto row = mh.row(s);
    for (std::size_t l = 1; l < lft.dest_count(); ++l) {
      const SwitchIdx t = lid_switch[l];
      if (t == kNoSwitch || t == s || row[t] == kUnreachable) {
        continue;
      }
      if (stamp[t] != s) {
        stamp[t] = s;
        cand[t].clear();
        cand_peer[t].clear();
        for (const auto& [p, u] : links) {
          if (mh.distance(u, t) + 1 == row[t]) {
            cand[t].push_back(p);
            cand_peer[t].push_back(u);
          }
        }
      }
      const PortNum port = detail::pick_balanced(cand[t], count.data());
      lft.set(s, static_cast<Dest>(l), port);
      if (mode != GroupMode::kOff) {
        detail::propose_group(*groups, mode, s, static_cast<Dest>(l), port, cand[t], cand_peer[t],
                              lag);
      }
    }
  }
  return lft;
}

}  // namespace syncfab::sm
