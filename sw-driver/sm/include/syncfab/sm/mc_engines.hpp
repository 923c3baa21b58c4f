#pragma once
// The multicast engines by name: one list shared by syncfab-route, the
// benchmark and the tests, so a new engine is added in one place.
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

// Per-run choices that do not change the trees.
struct McOptions {
  // Root selection: the index (root_index.hpp) when given, else the full scan
  // of minimal_height_roots(); both give the same roots.
  const RootIndex* roots = nullptr;
};

struct McEngine {
  std::string_view name;     // as on the command line, e.g. "FULB-MC"
  std::string_view summary;  // one line for --help
  bool dragonfly_only = false;
  // Routes every group in order and adds each tree to `load` (which may
  // already hold other trees). Batch form so that an engine may look at the
  // whole group set (several passes, rip-up and reroute).
  std::function<std::vector<McTree>(const MinHop&, std::span<const Group>, McLoad&,
                                    const McOptions&)>
      route;
  std::vector<McTree> route_all(const MinHop& mh, std::span<const Group> groups, McLoad& load,
                                const McOptions& options = {}) const {
    return route(mh, groups, load, options);
  }
};

// Every engine, in the order benchmarks print them.
std::span<const McEngine> mc_engines();

// The engine called `name`; throws std::invalid_argument naming the unknown
// engine and listing the known ones.
const McEngine& find_mc_engine(std::string_view name);

}  // namespace syncfab::sm
