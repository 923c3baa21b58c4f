#include "syncfab/sm/unicast_engines.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>
#include <vector>

#include "syncfab/fmt/formats.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/unicast.hpp"

namespace syncfab::sm {

namespace {

constexpr std::array<UnicastEngineInfo, 5> kEngines{{
    {"minhop", "OpenSM MINHOP: balanced shortest paths; not deadlock-free (no credit-loop check)"},
    {"updn", "Up*/Down* from the switches farthest from the end nodes; acyclic"},
    {"ftree", "fat trees: up*/down* paths, port by destination index (d-mod-k); acyclic"},
    {"dor", "3D tori: x, y, z the short way, 2 VLs with a dateline per ring; acyclic"},
    {"lash", "shortest paths, one lane per switch pair; acyclic; up to 1,000 switches"},
}};

bool is_torus(const Fabric& f) {
  try {
    (void)torus_layout(f);
    return true;
  } catch (const FabricError&) {
    return false;
  }
}

bool has_switch_without_end_nodes(const Fabric& f) {
  std::vector<char> mark(f.switch_count(), 0);
  for (const NodeId h : f.hcas()) {
    const SwitchIdx s = f.attach_switch(h);
    if (s != kNoSwitch) {
      mark[s] = 1;
    }
  }
  return std::find(mark.begin(), mark.end(), 0) != mark.end();
}

}  // namespace

std::span<const UnicastEngineInfo> unicast_engines() { return kEngines; }

bool is_unicast_engine(std::string_view name) {
  return std::any_of(kEngines.begin(), kEngines.end(),
                     [&](const UnicastEngineInfo& e) { return e.name == name; });
}

std::string unicast_engine_names() {
  std::string s;
  for (const UnicastEngineInfo& e : kEngines) {
    s += (s.empty() ? "" : ", ") + std::string(e.name);
  }
  return s;
}

std::string default_unicast(const Fabric& f) {
  if (is_torus(f)) {
    return "dor";
  }
  return has_switch_without_end_nodes(f) ? "ftree" : "updn";
}

void route_unicast(std::string_view name, const MinHop& mh, UnicastRouting& r) {
  const Fabric& f = mh.fabric();
  const GroupMode mode = r.group_mode;
  r.groups.reset();
  if (mode != GroupMode::kOff) {
    if (is_unicast_engine(name) && name != "minhop" && name != "updn" && name != "ftree") {
      throw std::invalid_argument(std::string(group_mode_name(mode)) + " port groups: engine '" +
                                  printable(name) +
                                  "' does not emit them (minhop, updn, ftree do)");
    }
    r.groups.emplace(f);
  }
  PortGroups* groups = r.groups ? &*r.groups : nullptr;
  if (name == "minhop") {
    r.lft.emplace(route_minhop(mh, mode, groups));
  } else if (name == "updn") {
    r.lft.emplace(route_updn(mh, updn_ranking(mh), mode, groups));
    r.promises_acyclic = true;
  } else if (name == "ftree") {
    r.lft.emplace(route_ftree(mh, updn_ranking(mh), mode, groups));
    r.promises_acyclic = true;
  } else if (name == "dor") {
    TorusLayout layout;
    try {
      layout = torus_layout(f);
    } catch (const FabricError& e) {
      throw std::invalid_argument(
          std::string("dor needs a 3D torus built with the generator's port plan: ") + e.what());
    }
    r.lft.emplace(route_dor(f, layout));
    r.vls = dor_dateline_vls(layout);
    r.promises_acyclic = true;
  } else if (name == "lash") {
    if (f.switch_count() > kLashMaxSwitches) {
      throw std::invalid_argument(
          "lash: " + std::to_string(f.switch_count()) + " switches; LASH is limited to " +
          std::to_string(kLashMaxSwitches) + " (it searches a graph per switch pair)");
    }
    LashRouting lash = route_lash(mh, 16);
    r.vls = lash.vls();
    r.lft.emplace(std::move(lash.lft));
    r.promises_acyclic = true;
  } else {
    throw std::invalid_argument("unknown unicast engine '" + printable(name) +
                                "' (known: " + unicast_engine_names() + ")");
  }
  if (r.groups) {
    r.groups->finalize(fmt::kPortGroups);
  }
}

}  // namespace syncfab::sm
