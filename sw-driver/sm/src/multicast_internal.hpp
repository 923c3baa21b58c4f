#pragma once
// Pieces shared by the multicast engines' sources (multicast.cpp,
// multicast_global.cpp); not part of the library's interface.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm::detail {

// Adds the switch-to-node entries of the group's end-node members.
void add_member_ports(const Fabric& f, const Group& group, std::vector<MftEntry>& entries);

// The root among the minimal-height candidates: the first one, or (rotate)
// the least loaded: fewest trees through the switch, then the least total
// EFI on its switch-to-switch links (McLoad::switch_link_efi), then the
// lowest switch index. One rule for every rotating engine (MINIHOP-MC-new,
// SSSP-MC-new, FULB-MC, FULB-MC-DF and FULB-MC-G's first pass).
SwitchIdx pick_root(const RootChoice& rc, const McLoad& load, bool rotate);

// While one lives on this thread, start_tree keeps its root for the trees
// it starts when that switch is among their minimal-height candidates: a
// tree rerouted after a failure keeps its root and every engine is used as
// it is (reroute.cpp). Not nested.
class KeepRoot {
 public:
  explicit KeepRoot(SwitchIdx root);
  ~KeepRoot();
  KeepRoot(const KeepRoot&) = delete;
  KeepRoot& operator=(const KeepRoot&) = delete;
  static SwitchIdx current();
};

// The root index when given, else the full scan (same answer).
RootChoice choose_roots(const MinHop& mh, std::span<const SwitchIdx> members,
                        const RootIndex* roots);

// What every engine starts with: the group's member switches, its root
// choice, and a tree holding the MLID, the root (rotated by load or not) and
// the minimal height. `routable` is false when there is nothing to route: no
// member switch, or members that cannot all reach one root; the tree is then
// returned as is.
struct TreeStart {
  std::vector<SwitchIdx> members;
  RootChoice choice;
  McTree tree;
  bool routable = false;
};
TreeStart start_tree(const MinHop& mh, const Group& group, const McLoad& load, bool rotate_root,
                     const RootIndex* roots);

// FULB-MC's bottom-up walk from a started tree (its tree is moved out;
// members and choice stay); `global`: the dragonfly rule's global links.
// `compact` (FULB-MC-G's first pass, not the paper's FULB-MC): members are
// walked nearest to the root first, and at each hop a next switch already
// in the tree goes before any other (then the dragonfly rule, then the
// load), so walks join the tree as early as a shortest path allows.
McTree fulb_tree(const MinHop& mh, const Group& group, const McLoad& load,
                 const std::vector<char>* global, TreeStart& start, bool compact);

// Sorts and deduplicates the entries.
void finish(McTree& t);

// Per-call scratch over all switches without clearing: a slot is valid when
// its stamp equals the current generation.
class Marks {
 public:
  void reset(std::size_t n) {
    if (stamp_.size() != n) {
      stamp_.assign(n, 0);
      gen_ = 0;
    }
    if (++gen_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      gen_ = 1;
    }
  }
  [[nodiscard]] bool test(SwitchIdx s) const { return stamp_[s] == gen_; }
  void set(SwitchIdx s) { stamp_[s] = gen_; }

 private:
  std::vector<std::uint32_t> stamp_;
  std::uint32_t gen_ = 0;
};

}  // namespace syncfab::sm::detail
