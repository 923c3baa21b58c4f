#include "syncfab/sm/route_stats.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace syncfab::sm {

namespace {
void bump(std::vector<std::size_t>& h, std::size_t k) {
  if (h.size() <= k) {
    h.resize(k + 1, 0);
  }
  ++h[k];
}
}  // namespace

EfiSummary summarize_efi(const Fabric& f, const McLoad& load) {
  EfiSummary s;
  s.stats = load.stats();
  s.switch_links.assign(1, 0);
  s.all_links.assign(1, 0);
  for (SwitchIdx sw = 0; sw < f.switch_count(); ++sw) {
    const NodeId n = f.switch_node(sw);
    for (int pi = 1; pi <= f.num_ports(n); ++pi) {
      const auto p = static_cast<PortNum>(pi);
      const PortPeer o = f.peer(n, p);
      if (!o.connected()) {
        continue;
      }
      const std::uint32_t e = load.efi(sw, p);
      bump(s.all_links, e);
      if (f.is_switch(o.node)) {
        bump(s.switch_links, e);
      }
    }
  }
  return s;
}

HeightSummary summarize_heights(std::span<const McTree> trees) {
  HeightSummary h;
  if (trees.empty()) {
    return h;
  }
  h.min = trees.front().height;
  double sum = 0;
  for (const McTree& t : trees) {
    h.min = std::min(h.min, t.height);
    h.max = std::max(h.max, t.height);
    sum += t.height;
    bump(h.histogram, static_cast<std::size_t>(std::max(t.height, 0)));
  }
  h.mean = sum / static_cast<double>(trees.size());
  return h;
}

std::uint64_t peak_rss_bytes() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) {
    return 0;
  }
  return static_cast<std::uint64_t>(u.ru_maxrss) * 1024U;  // Linux reports KiB
}

}  // namespace syncfab::sm
