#include "routing.hpp"

#include <optional>
#include <stdexcept>

#include "switch_fabric_sm.hpp"
#include "syncfab/sm/mc_engines.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::tb::system {

SystemRouting route_system(const sm::Fabric& smf, const RoutingOptions& opts) {
  const sm::MinHop mh(smf);
  SystemRouting r;
  r.unicast = opts.unicast.empty() ? sm::default_unicast(smf) : opts.unicast;
  r.uc.group_mode = opts.group_mode;
  sm::route_unicast(r.unicast, mh, r.uc);
  // Every switch reaches every NIC (switch-to-switch LIDs between spines
  // stay unrouted under up*/down*, as in OpenSM; no NIC sends to them).
  for (sm::SwitchIdx s = 0; s < smf.switch_count(); ++s) {
    for (const sm::NodeId h : smf.hcas()) {
      const std::uint16_t lid = smf.lid(h, 1);
      if (sm::walk(*r.uc.lft, s, lid).empty()) {
        throw std::invalid_argument("unicast " + r.unicast + ": switch " +
                                    smf.name(smf.switch_node(s)) + " does not reach " +
                                    smf.name(h) + " (LID " + sm::hex_lid(lid) + ")");
      }
    }
  }
  route_groups(smf, mh, opts, r);
  return r;
}

void route_groups(const sm::Fabric& smf, const sm::MinHop& mh, const RoutingOptions& opts,
                  SystemRouting& r) {
  r.mc = opts.mc;
  if (r.mc.empty()) {
    return;
  }
  sm::PatternSpec ps = sm::parse_pattern(opts.groups);
  ps.seed = opts.seed;
  ps.placement = opts.placement;
  r.groups = sm::make_groups(smf, ps);
  sm::McLoad load(smf);
  r.trees = sm::find_mc_engine(r.mc).route_all(mh, r.groups.groups, load);
  sm::McLoad all(smf);
  for (const sm::McTree& t : r.trees) {
    all.add(t);
  }
  r.efi = all.stats();
  for (std::size_t g = 0; g < r.trees.size(); ++g) {
    const std::string why = sm::check_tree(mh, r.groups.groups[g], r.trees[g]);
    if (!why.empty()) {
      throw std::invalid_argument(r.mc + " tree of group " + std::to_string(g) + ": " + why);
    }
  }
}

ProgramReport program_and_verify(SystemFabric& sys, const SystemRouting& routing) {
  const sm::PortGroups* groups = routing.uc.groups ? &*routing.uc.groups : nullptr;
  const ProgramReport pr = program_switches(sys, *routing.uc.lft, routing.trees, groups);
  const auto entry_text = [](const driver::LftEntry& e) {
    return (e.group ? "group " : "port ") + std::to_string(e.port);
  };
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    driver::Switch& d = sys.sw(s).driver();
    const unsigned ports = sys.sw(s).port_count();
    if (groups != nullptr) {
      for (const driver::PortGroupEntry& g : swfab::group_entries(*groups, s, ports)) {
        const std::optional<std::uint32_t> got = d.port_group(g.group);
        if (got != g.members) {
          throw std::runtime_error(
              sys.sw(s).name() + ": port group " + std::to_string(g.group) + " reads back " +
              (got ? "members " + std::to_string(*got) : std::string("no entry")) +
              ", programmed members " + std::to_string(g.members));
        }
      }
    }
    for (const driver::LftEntry& e : groups != nullptr
                                         ? swfab::lft_entries(*routing.uc.lft, *groups, s, ports)
                                         : swfab::lft_entries(*routing.uc.lft, s, ports)) {
      const std::optional<driver::LftEntry> got = d.lft_entry(e.lid);
      if (got != e) {
        throw std::runtime_error(
            sys.sw(s).name() + ": LFT LID " + sm::hex_lid(e.lid) + " reads back " +
            (got ? entry_text(*got) : std::string("no entry")) + ", programmed " + entry_text(e));
      }
    }
    for (const auto& [mlid, mask] : swfab::mft_masks(routing.trees, s, sys.sw(s).port_count())) {
      const std::optional<std::uint32_t> got = d.mft(mlid);
      if (got != mask) {
        throw std::runtime_error(sys.sw(s).name() + ": MFT MLID " + sm::hex_lid(mlid) +
                                 " reads back " +
                                 (got ? "mask " + std::to_string(*got) : std::string("no entry")) +
                                 ", programmed mask " + std::to_string(mask));
      }
    }
  }
  return pr;
}

}  // namespace syncfab::tb::system
