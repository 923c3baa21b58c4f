#pragma once
// Port groups (docs/switch-ecmp.md): an LFT entry may name a set of output
// ports instead of one; the switch picks a member per flow. Per switch at most
// a fixed number of distinct sets (fmt::kPortGroups), numbered in the order
// the destinations (LID order) first meet them. An entry whose set found no
// group number keeps the Lft's single port (the engine's own choice, always a
// member of the set), so the Lft stays a complete single-port table and every
// consumer that reads only it (walks, lfts.dump, shortest-path check) keeps
// working.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/lft.hpp"

namespace syncfab::sm {

// What the unicast engines put in groups: nothing (the default, tables as
// before), every minimum-hop port the engine allows (ECMP), or the parallel
// links to the engine's own next switch (LAG).
enum class GroupMode : std::uint8_t { kOff, kEcmp, kLag };
std::string_view group_mode_name(GroupMode m);

class PortGroups {
 public:
  static constexpr std::uint16_t kNone = 0;

  explicit PortGroups(const Fabric& fabric);

  // While routing: destination d at switch s may leave on any of `members`
  // (two or more ports, ascending; a single port is an ordinary entry and is
  // ignored). Calls for different switches may come from different threads.
  void propose(SwitchIdx s, Dest d, std::span<const PortNum> members);
  // After routing: numbers each switch's sets in destination order, at most
  // max_groups per switch; entries of the sets past it lose their group.
  void finalize(std::size_t max_groups);

  // The group entry (s, d) names, or -1 (the Lft's port alone).
  [[nodiscard]] int group(SwitchIdx s, Dest d) const {
    const std::uint16_t v = entry_[static_cast<std::size_t>(s) * dests_ + d];
    return v == kNone ? -1 : v - 1;
  }
  // The members of group g of switch s.
  [[nodiscard]] std::span<const PortNum> members(SwitchIdx s, int g) const {
    return sets_[s][static_cast<std::size_t>(g)];
  }
  [[nodiscard]] std::size_t group_count(SwitchIdx s) const { return sets_[s].size(); }
  [[nodiscard]] std::size_t switch_count() const { return sets_.size(); }
  [[nodiscard]] std::size_t dest_count() const { return dests_; }
  // After finalize: entries that name a group, entries whose set found no
  // group number (they keep the single port), groups over all switches.
  [[nodiscard]] std::size_t grouped_entries() const { return grouped_; }
  [[nodiscard]] std::size_t fallback_entries() const { return fallback_; }
  [[nodiscard]] std::size_t total_groups() const;
  [[nodiscard]] std::size_t memory_bytes() const { return entry_.capacity() * 2; }

 private:
  std::size_t dests_;
  std::vector<std::uint16_t> entry_;                     // per (switch, dest): set id + 1, or kNone
  std::vector<std::vector<std::vector<PortNum>>> sets_;  // per switch
  std::vector<std::uint16_t> last_;                      // per switch: last set id + 1 proposed
  std::size_t grouped_ = 0;
  std::size_t fallback_ = 0;
};

// The ports a packet of entry (s, d) may leave on: the group's members, or
// the Lft's port alone (an empty span for kNoRoute).
std::vector<PortNum> entry_ports(const Lft& lft, const PortGroups* groups, SwitchIdx s, Dest d);

// port_groups file (written next to lfts.dump): a comment header, then per
// switch with groups one line per group
//   0x<switch guid> <group> <port> <port> ...
// and per entry naming a group
//   0x<switch guid> lid 0x<LID> group <group>
// in switch order, groups before the entries that name them (the order a
// driver programs them in). Destinations without a LID are left out.
void write_port_groups(std::ostream& out, const Lft& lft, const PortGroups& groups);

}  // namespace syncfab::sm
