#include "syncfab/sm/mc_engines.hpp"

#include <array>
#include <stdexcept>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

namespace {

// Adapts a one-group engine (greedy, in group order) to the batch form.
template <typename Route>
std::vector<McTree> one_by_one(std::span<const Group> groups, McLoad& load, Route route) {
  std::vector<McTree> trees;
  trees.reserve(groups.size());
  for (const Group& g : groups) {
    trees.push_back(route(g));
    load.add(trees.back());
  }
  return trees;
}

const std::array<McEngine, 7> kEngines = {{
    {"MINIHOP-MC", "OpenSM: first minimal-height root, lowest min-hop port top down", false,
     [](const MinHop& mh, std::span<const Group> gs, McLoad& load, const McOptions& o) {
       return one_by_one(
           gs, load, [&](const Group& g) { return route_minihop_mc(mh, g, load, false, o.roots); });
     }},
    {"MINIHOP-MC-new", "MINIHOP-MC with root rotation (least-loaded minimal-height root)", false,
     [](const MinHop& mh, std::span<const Group> gs, McLoad& load, const McOptions& o) {
       return one_by_one(
           gs, load, [&](const Group& g) { return route_minihop_mc(mh, g, load, true, o.roots); });
     }},
    {"SSSP-MC", "Dijkstra from the root, link weight = groups already on the link", false,
     [](const MinHop& mh, std::span<const Group> gs, McLoad& load, const McOptions& o) {
       return one_by_one(
           gs, load, [&](const Group& g) { return route_sssp_mc(mh, g, load, false, o.roots); });
     }},
    {"SSSP-MC-new", "SSSP-MC with root rotation", false,
     [](const MinHop& mh, std::span<const Group> gs, McLoad& load, const McOptions& o) {
       return one_by_one(gs, load,
                         [&](const Group& g) { return route_sssp_mc(mh, g, load, true, o.roots); });
     }},
    {"FULB-MC", "root rotation, bottom-up least-loaded min-hop port (the paper)", false,
     [](const MinHop& mh, std::span<const Group> gs, McLoad& load, const McOptions& o) {
       return one_by_one(
           gs, load, [&](const Group& g) { return route_fulb_mc_indexed(mh, g, load, o.roots); });
     }},
    {"FULB-MC-DF", "FULB-MC with the dragonfly rule (fewest global links first)", true,
     [](const MinHop& mh, std::span<const Group> gs, McLoad& load, const McOptions& o) {
       const std::vector<char> global = dragonfly_global_links(mh.fabric());
       return one_by_one(gs, load, [&](const Group& g) {
         return route_fulb_mc_dragonfly(mh, g, load, global, o.roots);
       });
     }},
    {"FULB-MC-G",
     "beyond the paper: compact first pass, then bottleneck-aware rip-up of the max-EFI links",
     false,
     [](const MinHop& mh, std::span<const Group> gs, McLoad& load, const McOptions& o) {
       return route_fulb_mc_global(mh, gs, load, o.roots);
     }},
}};

}  // namespace

std::span<const McEngine> mc_engines() { return kEngines; }

const McEngine& find_mc_engine(std::string_view name) {
  std::string known;
  for (const McEngine& e : kEngines) {
    if (e.name == name) {
      return e;
    }
    known += known.empty() ? "" : ", ";
    known += e.name;
  }
  throw std::invalid_argument("unknown multicast engine '" + printable(name) +
                              "' (known: " + known + ")");
}

}  // namespace syncfab::sm
