#include "syncfab/sm/port_groups.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>

#include "syncfab/sm/errors.hpp"

namespace syncfab::sm {

std::string_view group_mode_name(GroupMode m) {
  switch (m) {
    case GroupMode::kOff:
      return "off";
    case GroupMode::kEcmp:
      return "ecmp";
    case GroupMode::kLag:
      return "lag";
  }
  return "?";
}

PortGroups::PortGroups(const Fabric& fabric)
    : dests_(fabric.dest_count()),
      entry_(fabric.switch_count() * fabric.dest_count(), kNone),
      sets_(fabric.switch_count()),
      last_(fabric.switch_count(), kNone) {}

void PortGroups::propose(SwitchIdx s, Dest d, std::span<const PortNum> members) {
  if (members.size() < 2) {
    return;
  }
  auto& sets = sets_[s];
  auto same = [&](std::uint16_t id) {
    return std::equal(members.begin(), members.end(), sets[id - 1U].begin(), sets[id - 1U].end());
  };
  std::uint16_t id = last_[s];
  if (id == kNone || !same(id)) {
    id = kNone;
    for (std::size_t i = 0; i < sets.size(); ++i) {
      if (same(static_cast<std::uint16_t>(i + 1))) {
        id = static_cast<std::uint16_t>(i + 1);
        break;
      }
    }
    if (id == kNone) {
      // Past 65,535 distinct sets on one switch the entry keeps its single
      // port (finalize allows far fewer groups anyway).
      if (sets.size() >= std::numeric_limits<std::uint16_t>::max() - 1U) {
        return;
      }
      sets.emplace_back(members.begin(), members.end());
      id = static_cast<std::uint16_t>(sets.size());
    }
    last_[s] = id;
  }
  entry_[static_cast<std::size_t>(s) * dests_ + d] = id;
}

void PortGroups::finalize(std::size_t max_groups) {
  grouped_ = 0;
  fallback_ = 0;
  std::vector<std::uint16_t> number;
  for (std::size_t s = 0; s < sets_.size(); ++s) {
    auto& sets = sets_[s];
    number.assign(sets.size() + 1, kNone);
    std::vector<std::vector<PortNum>> kept;
    std::uint16_t* row = entry_.data() + s * dests_;
    for (std::size_t d = 0; d < dests_; ++d) {
      const std::uint16_t id = row[d];
      if (id == kNone) {
        continue;
      }
      if (number[id] == kNone && kept.size() < max_groups) {
        kept.push_back(std::move(sets[id - 1U]));
        number[id] = static_cast<std::uint16_t>(kept.size());
      }
      row[d] = number[id];
      ++(number[id] == kNone ? fallback_ : grouped_);
    }
    sets = std::move(kept);
    last_[s] = kNone;
  }
}

std::size_t PortGroups::total_groups() const {
  std::size_t n = 0;
  for (const auto& sets : sets_) {
    n += sets.size();
  }
  return n;
}

std::vector<PortNum> entry_ports(const Lft& lft, const PortGroups* groups, SwitchIdx s, Dest d) {
  if (groups != nullptr) {
    if (const int g = groups->group(s, d); g >= 0) {
      const auto m = groups->members(s, g);
      return {m.begin(), m.end()};
    }
  }
  const PortNum p = lft.get(s, d);
  if (p == kNoRoute) {
    return {};
  }
  return {p};
}

void write_port_groups(std::ostream& out, const Lft& lft, const PortGroups& groups) {
  const Fabric& f = lft.fabric();
  if (const std::size_t lidless = f.lidless_count(); lidless != 0) {
    throw FabricError("port_groups needs a LID per destination: " + std::to_string(lidless) +
                      " destinations have none");
  }
  out << "# syncfab port groups (docs/switch-ecmp.md): per switch its groups\n"
         "#   0x<switch guid> <group> <member port> ...\n"
         "# then the LFT entries naming a group\n"
         "#   0x<switch guid> lid 0x<LID> group <group>\n"
         "# Entries not listed are the single ports of lfts.dump.\n";
  char buf[96];
  for (SwitchIdx s = 0; s < f.switch_count(); ++s) {
    if (groups.group_count(s) == 0) {
      continue;
    }
    const std::uint64_t guid = f.guid(f.switch_node(s));
    for (std::size_t g = 0; g < groups.group_count(s); ++g) {
      std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " %zu", guid, g);
      out << buf;
      for (const PortNum p : groups.members(s, static_cast<int>(g))) {
        out << ' ' << static_cast<unsigned>(p);
      }
      out << '\n';
    }
    for (std::size_t d = 1; d < lft.dest_count(); ++d) {
      const int g = groups.group(s, static_cast<Dest>(d));
      if (g >= 0) {
        std::snprintf(buf, sizeof buf, "0x%016" PRIx64 " lid 0x%04zx group %d\n", guid, d, g);
        out << buf;
      }
    }
  }
}

}  // namespace syncfab::sm
