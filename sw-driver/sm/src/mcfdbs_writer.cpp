#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/mcfdbs.hpp"

namespace syncfab::sm {

namespace {

struct Row {
  SwitchIdx sw;
  Lid mlid;
  PortNum port;
};

}  // namespace

void write_mcfdbs(std::ostream& out, const Fabric& f, std::span<const McTree> trees) {
  std::vector<char> mlid_used(kLastMulticastLid - fmt::kMlidBase + 1, 0);
  std::size_t total = 0;
  for (const McTree& t : trees) {
    if (t.mlid < fmt::kMlidBase || t.mlid > kLastMulticastLid) {
      throw FabricError("mcfdbs: MLID " + std::to_string(t.mlid) + " outside the multicast range " +
                        hex_lid(fmt::kMlidBase) + ".." + hex_lid(kLastMulticastLid));
    }
    char& used = mlid_used[t.mlid - fmt::kMlidBase];
    if (used != 0) {
      throw FabricError("mcfdbs: MLID " + std::to_string(t.mlid) + " used by two trees");
    }
    used = 1;
    total += t.entries.size();
  }
  // OpenSM prints switches in GUID order; ours are in creation order.
  std::vector<SwitchIdx> rank_of(f.switch_count());
  {
    std::vector<SwitchIdx> order(f.switch_count());
    std::iota(order.begin(), order.end(), SwitchIdx{0});
    std::sort(order.begin(), order.end(), [&](SwitchIdx a, SwitchIdx b) {
      return f.guid(f.switch_node(a)) < f.guid(f.switch_node(b));
    });
    for (SwitchIdx r = 0; r < order.size(); ++r) {
      rank_of[order[r]] = r;
    }
  }
  std::vector<Row> rows;
  rows.reserve(total);
  for (const McTree& t : trees) {
    for (const MftEntry& e : t.entries) {
      if (e.sw >= f.switch_count() || e.port > f.num_ports(f.switch_node(e.sw))) {
        throw FabricError("mcfdbs: MLID " + std::to_string(t.mlid) + " has an entry on switch " +
                          std::to_string(e.sw) + " port " + std::to_string(e.port) +
                          " the fabric does not have");
      }
      rows.push_back({e.sw, t.mlid, e.port});
    }
  }
  std::sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (a.sw != b.sw) {
      return rank_of[a.sw] < rank_of[b.sw];
    }
    return a.mlid != b.mlid ? a.mlid < b.mlid : a.port < b.port;
  });
  // A tree listing a port twice still programs one bit.
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const Row& a, const Row& b) {
                           return a.sw == b.sw && a.mlid == b.mlid && a.port == b.port;
                         }),
             rows.end());
  char buf[64];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (i == 0 || rows[i - 1].sw != r.sw) {
      std::snprintf(buf, sizeof buf, "\nSwitch 0x%016" PRIx64 "\nLID    : Out Port(s)\n",
                    f.guid(f.switch_node(r.sw)));
      out << buf;
    }
    if (i == 0 || rows[i - 1].sw != r.sw || rows[i - 1].mlid != r.mlid) {
      std::snprintf(buf, sizeof buf, "0x%04X :", static_cast<unsigned>(r.mlid));
      out << buf;
    }
    std::snprintf(buf, sizeof buf, " 0x%03X ", static_cast<unsigned>(r.port));
    out << buf;
    const bool last = i + 1 == rows.size() || rows[i + 1].sw != r.sw || rows[i + 1].mlid != r.mlid;
    if (last) {
      out << '\n';
    }
  }
}

}  // namespace syncfab::sm
