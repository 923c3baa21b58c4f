#pragma once
// Multicast trees (DESIGN.md section 5b): one tree per group, stored as the
// MFT entries it programs (switch, out port). Trees are bidirectional: a
// switch-to-switch tree link has an entry at both ends, a member end node an
// entry at its switch. EFI of a directed link out of a switch = the number of
// groups whose MFT forwards on that port.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::sm {

class RootIndex;  // root_index.hpp: the same root choice without a full scan

struct MftEntry {
  SwitchIdx sw = kNoSwitch;
  PortNum port = 0;
  friend bool operator==(const MftEntry&, const MftEntry&) = default;
  friend bool operator<(const MftEntry& a, const MftEntry& b) {
    return a.sw != b.sw ? a.sw < b.sw : a.port < b.port;
  }
};

struct McTree {
  Lid mlid = 0;
  SwitchIdx root = kNoSwitch;
  int height = 0;                 // hops from the root to the farthest member switch
  std::vector<MftEntry> entries;  // sorted, unique
};

// Load seen by the balancing engines, and the EFI of every routing run.
class McLoad {
 public:
  explicit McLoad(const Fabric& fabric);
  void add(const McTree& tree);
  // Undoes add() of the same tree (rip-up and reroute).
  void remove(const McTree& tree);
  // Trees that pass through switch s (root rotation picks the least loaded).
  [[nodiscard]] std::uint32_t switch_trees(SwitchIdx s) const { return switch_trees_[s]; }
  // Sum of the EFI of switch s's switch-to-switch out links (root rotation's
  // tie-break between switches with as many trees through them).
  [[nodiscard]] std::uint64_t switch_link_efi(SwitchIdx s) const { return switch_link_efi_[s]; }
  // Groups forwarding out of port p of switch s.
  [[nodiscard]] std::uint32_t efi(SwitchIdx s, PortNum p) const {
    return efi_[fabric_.port_slot(fabric_.switch_node(s), p)];
  }
  // The same by Fabric::port_slot (loops over precomputed slots).
  [[nodiscard]] std::uint32_t efi_at(std::size_t slot) const { return efi_[slot]; }

  struct Stats {
    std::uint32_t max_switch_links = 0;  // switch-to-switch directed links
    double mean_switch_links = 0;        // over used ones
    std::uint32_t max_all_links = 0;     // plus switch-to-node links
    double mean_all_links = 0;
    std::size_t used_switch_links = 0;
    std::size_t used_all_links = 0;
  };
  [[nodiscard]] Stats stats() const;
  // histogram[k] = directed links (switch-to-switch and switch-to-node) with EFI k, k >= 1.
  [[nodiscard]] std::vector<std::size_t> histogram() const;

 private:
  const Fabric& fabric_;
  std::vector<std::uint32_t> switch_trees_;
  std::vector<std::uint64_t> switch_link_efi_;
  std::vector<std::uint32_t> efi_;  // by Fabric::port_slot
};

// Minimal tree height for the member switches: min over all switches of the
// max hop distance to them; also the switches reaching it (in index order).
struct RootChoice {
  int height = 0;
  std::vector<SwitchIdx> candidates;
};
RootChoice minimal_height_roots(const MinHop& mh, std::span<const SwitchIdx> member_switches);

// Every engine below takes an optional RootIndex: the same RootChoice as
// minimal_height_roots() without scanning every switch (nullptr = the scan).

// The distinct switches the group's members sit on or hang off, sorted.
std::vector<SwitchIdx> member_switches(const Fabric& fabric, const Group& group);

// Root rotation, shared by every rotating engine (the paper: "the least
// loaded by switch load"): the minimal-height root with the fewest trees
// through it, ties to the least total EFI on its switch-to-switch links
// (switch_link_efi), then the lowest switch index.

// MINIHOP-MC (OpenSM): root = first switch of minimal height (rotate_root:
// the least loaded of them, MINIHOP-MC-new); then top down, each member
// switch is reached over the lowest-numbered min-hop port. Switches are
// claimed level by level, the first parent wins, so the result is a tree
// even where two branches would meet.
McTree route_minihop_mc(const MinHop& mh, const Group& group, const McLoad& load, bool rotate_root,
                        const RootIndex* roots = nullptr);

// FULB-MC: root rotation (least loaded among the minimal-height roots), then
// bottom up: from each member switch walk a shortest path to the root, at
// each hop over the least-loaded min-hop port (lowest port on a tie), and
// stop on reaching a switch already in the tree (its path is reused, so no
// loop). Worst case O(|E| + |N|) after root selection.
McTree route_fulb_mc(const MinHop& mh, const Group& group, const McLoad& load);
// The same with a root index (a separate name: route_fulb_mc is passed around
// as a plain function, e.g. FabricMcgRouter's default engine).
McTree route_fulb_mc_indexed(const MinHop& mh, const Group& group, const McLoad& load,
                             const RootIndex* roots);

// Dragonfly global links, by port slot (Fabric::port_slot): a switch link is
// global when its two ends have no switch neighbour in common. In a dragonfly
// (a >= 3, one global link per group pair) that is exactly the inter-group
// links: a local link lies in its group's clique, a global one in no
// triangle. Works on net files too, where the generator's port plan is lost.
std::vector<char> dragonfly_global_links(const Fabric& fabric);

// FULB-MC with the paper's dragonfly rule: among the min-hop ports, first
// those whose shortest path to the root uses the fewest global links (so a
// path with two global links is never taken when one with a single global
// link exists), then the least loaded.
McTree route_fulb_mc_dragonfly(const MinHop& mh, const Group& group, const McLoad& load,
                               const std::vector<char>& global_links,
                               const RootIndex* roots = nullptr);

// SSSP-MC: Dijkstra from the root over all switches, link weight = a base
// that exceeds any sum of loads (shortest paths always win) + the groups
// already forwarding on the link; the tree is the union of the predecessor
// paths of the member switches. rotate_root: SSSP-MC-new.
McTree route_sssp_mc(const MinHop& mh, const Group& group, const McLoad& load, bool rotate_root,
                     const RootIndex* roots = nullptr);

// FULB-MC-G, beyond the paper (sw-driver/sm/README.md "Beyond the paper").
// One group: FULB-MC with a bottleneck-aware hop choice. For the chosen root,
// B(x) = the least possible max link load on a shortest path from x to the
// root (a DP over the min-hop DAG towards the root, memoised over the
// switches the members' walks can reach); each hop takes the port
// minimising max(load(x,p), B(peer)), then load(x,p), then the port number.
McTree route_fulb_mc_bottleneck(const MinHop& mh, const Group& group, const McLoad& load,
                                const RootIndex* roots = nullptr);

// FULB-MC-G on a batch. First pass: FULB-MC's root rotation with a compact
// walk (members nearest to the root first; at each hop a next switch already
// in the tree before the least-loaded one), so trees share their links as
// MINIHOP-MC-new's top-down trees do. Then rip-up and reroute on the whole
// picture: while the max switch-link EFI is M > 1, for every link at M one
// group on it is moved to a tree that avoids that link and uses only links
// with load <= M-2 once its own tree is removed, or links its old tree used
// (built like route_fulb_mc_bottleneck with the other links cut; up to 16
// minimal-height roots, first those at equal distance from both ends of the
// link, then the current root, then the least used; shortest paths to a
// minimal-height root, so check_tree holds; at most 8 groups tried per
// link). When every link at M is relieved, M drops and the loop goes on; at
// the first link no group can leave it stops. No link's EFI ever rises above
// its value after the first pass's max. The rip-up's work is bounded by a
// share (1/5) of the work pass 1 did, counted in the same units (a switch
// port examined, a tree entry handled, a root candidate ranked, a 16-switch
// block of a member's distance row scanned), so its time follows FULB-MC's
// whatever a reroute costs. `stats` (optional) reports the work done.
struct McGlobalStats {
  std::uint32_t first_max = 0;     // max switch-link EFI after the first pass
  std::uint32_t rounds = 0;        // times M dropped by one
  std::size_t moves = 0;           // groups rerouted
  std::size_t attempts = 0;        // (group, root) pairs tried
  std::uint64_t first_work = 0;    // pass 1, in the budget's units
  std::uint64_t reroute_work = 0;  // the rip-up, same units (stops at 1/5 of first_work)
};
std::vector<McTree> route_fulb_mc_global(const MinHop& mh, std::span<const Group> groups,
                                         McLoad& load, const RootIndex* roots = nullptr,
                                         McGlobalStats* stats = nullptr);

// Checks a tree against DESIGN.md 5b: every entry on a connected port, switch
// links present at both ends, only members' end nodes served, no loop, every
// member reached, root in the tree, height = the minimal height. Returns an
// empty string when all hold, else what is wrong.
std::string check_tree(const MinHop& mh, const Group& group, const McTree& tree);

}  // namespace syncfab::sm
