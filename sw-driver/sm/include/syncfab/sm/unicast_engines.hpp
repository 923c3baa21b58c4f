#pragma once
// The unicast engines by name (unicast.hpp), as the tools offer them: one
// list of names and summaries, the per-fabric default and one call that
// routes with the engine a user named.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "syncfab/sm/credit_loop.hpp"
#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/port_groups.hpp"

namespace syncfab::sm {

struct UnicastEngineInfo {
  std::string_view name;
  std::string_view summary;
};

// minhop, updn, ftree, dor, lash (no "none": a tool that can skip unicast
// routing says so itself).
std::span<const UnicastEngineInfo> unicast_engines();
bool is_unicast_engine(std::string_view name);
// "minhop, updn, ftree, dor, lash", for messages.
std::string unicast_engine_names();

// The documented default: dor on a torus (recognised from its links), ftree
// where some switches carry no end nodes (fat trees), updn otherwise
// (dragonfly and other direct networks).
std::string default_unicast(const Fabric& f);

// LASH searches a graph per switch pair: fabrics larger than this are refused.
inline constexpr std::size_t kLashMaxSwitches = 1000;

struct UnicastRouting {
  // In: port groups to emit (MINHOP, UPDN, FTREE only; off by default).
  GroupMode group_mode = GroupMode::kOff;
  std::optional<Lft> lft;  // an Lft refers to its fabric: filled in place
  // With group_mode on: the groups, finalized to fmt::kPortGroups per switch.
  std::optional<PortGroups> groups;
  VlAssignment vls;  // the lanes the engine needs (DOR's datelines, LASH's layers)
  bool promises_acyclic = false;
};

// Routes with the engine `name` (case-sensitive, one of unicast_engines()).
// Throws std::invalid_argument naming an unknown engine, DOR on a fabric
// that is not a generator-built 3D torus, LASH past kLashMaxSwitches, port
// groups asked of DOR or LASH (their lanes are per path, not per port set).
void route_unicast(std::string_view name, const MinHop& mh, UnicastRouting& r);

}  // namespace syncfab::sm
