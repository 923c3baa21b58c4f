#include "syncfab/model/collective/network.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>

namespace syncfab::model::collective {

namespace {

constexpr std::uint16_t kFar = std::numeric_limits<std::uint16_t>::max();

std::string where(unsigned sw, unsigned port) {
  return "switch " + std::to_string(sw) + " port " + std::to_string(port);
}

}  // namespace

Network::Network(const Topology& topo)
    : ports_(topo.switch_ports), node_sw_(topo.nodes.size()), node_port_(topo.nodes.size()) {
  offset_.reserve(ports_.size());
  std::uint32_t next = 0;
  for (const unsigned p : ports_) {
    offset_.push_back(next);
    next += p + 1;  // port 0 is the switch's own; kept so slot() needs no subtraction
  }
  node_base_ = next;
  far_.resize(next + topo.nodes.size());
  peer_sw_.assign(next, kNone);
  const auto check_port = [&](unsigned sw, unsigned port) {
    if (sw >= ports_.size() || port == 0 || port > ports_[sw]) {
      throw std::invalid_argument("topology: no " + where(sw, port));
    }
    if (far_[slot(sw, port)].node != kNone || far_[slot(sw, port)].sw != kNone) {
      throw std::invalid_argument("topology: " + where(sw, port) + " linked twice");
    }
  };
  for (const auto& l : topo.links) {
    check_port(l.a, l.port_a);
    check_port(l.b, l.port_b);
    far_[slot(l.a, l.port_a)] = Far{l.b, l.port_b, kNone, l.delay};
    far_[slot(l.b, l.port_b)] = Far{l.a, l.port_a, kNone, l.delay};
    peer_sw_[slot(l.a, l.port_a)] = l.b;
    peer_sw_[slot(l.b, l.port_b)] = l.a;
  }
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    const auto& e = topo.nodes[n];
    check_port(e.sw, e.port);
    far_[slot(e.sw, e.port)] = Far{kNone, 0, static_cast<std::uint32_t>(n), e.delay};
    far_[node_base_ + n] = Far{e.sw, e.port, kNone, e.delay};
    node_sw_[n] = e.sw;
    node_port_[n] = e.port;
  }
  dist_.resize(ports_.size());
}

const std::vector<std::uint16_t>& Network::distances(unsigned to_sw) {
  if (!dist_[to_sw]) {
    search_batch(to_sw - to_sw % 64);
  }
  return *dist_[to_sw];
}

// Breadth-first searches from 64 switches at once, one bit per search in a
// word per switch (links are symmetric: distances from a switch are
// distances to it). A 101,306-node fat tree (6,845 switches) needs 107
// batches instead of 6,845 searches.
void Network::search_batch(unsigned first) {
  const std::size_t n = ports_.size();
  const unsigned count = static_cast<unsigned>(std::min<std::size_t>(64, n - first));
  if (adj_off_.empty()) {
    adj_off_.reserve(n + 1);
    for (std::size_t s = 0; s < n; ++s) {
      adj_off_.push_back(static_cast<std::uint32_t>(adj_.size()));
      for (unsigned p = 1; p <= ports_[s]; ++p) {
        const std::uint32_t q = peer_sw_[offset_[s] + p];
        if (q != kNone) {
          adj_.push_back(q);
          adj_port_.push_back(p);
        }
      }
    }
    adj_off_.push_back(static_cast<std::uint32_t>(adj_.size()));
  }
  std::vector<std::uint64_t> seen(n, 0);
  std::vector<std::uint64_t> frontier(n, 0);
  std::vector<std::uint64_t> next(n, 0);
  for (unsigned i = 0; i < count; ++i) {
    dist_[first + i] = std::make_unique<std::vector<std::uint16_t>>(n, kFar);
    (*dist_[first + i])[first + i] = 0;
    seen[first + i] = std::uint64_t{1} << i;
    frontier[first + i] = std::uint64_t{1} << i;
  }
  for (std::uint16_t level = 1;; ++level) {
    std::fill(next.begin(), next.end(), 0);
    for (std::size_t s = 0; s < n; ++s) {
      if (frontier[s] != 0) {
        for (std::uint32_t e = adj_off_[s]; e < adj_off_[s + 1]; ++e) {
          next[adj_[e]] |= frontier[s];
        }
      }
    }
    bool any = false;
    for (std::size_t q = 0; q < n; ++q) {
      std::uint64_t fresh = next[q] & ~seen[q];
      frontier[q] = fresh;
      if (fresh == 0) {
        continue;
      }
      any = true;
      seen[q] |= fresh;
      while (fresh != 0) {
        const int i = std::countr_zero(fresh);
        fresh &= fresh - 1;
        (*dist_[first + static_cast<unsigned>(i)])[q] = level;
      }
    }
    if (!any) {
      break;
    }
  }
  searched_ += count;
}

unsigned Network::route(unsigned sw, unsigned dst, std::uint64_t& spread) {
  const unsigned to_sw = node_sw_[dst];
  if (to_sw == sw) {
    return node_port_[dst];
  }
  const auto& dist = distances(to_sw);
  if (dist[sw] == kFar) {
    throw std::runtime_error("route: switch " + std::to_string(sw) + " does not reach switch " +
                             std::to_string(to_sw) + " (end node " + std::to_string(dst) + ")");
  }
  const std::uint16_t want = dist[sw] - 1;
  const std::uint32_t lo = adj_off_[sw];
  const std::uint32_t hi = adj_off_[sw + 1];
  unsigned count = 0;
  for (std::uint32_t e = lo; e < hi; ++e) {
    count += dist[adj_[e]] == want ? 1U : 0U;
  }
  auto pick = static_cast<unsigned>((dst / spread) % count);
  // Past every end node's index the quotient is 0 for good: stop growing.
  if (count > 1 && spread <= node_sw_.size()) {
    spread *= count;
  }
  for (std::uint32_t e = lo; e < hi; ++e) {
    if (dist[adj_[e]] == want) {
      if (pick == 0) {
        return adj_port_[e];
      }
      --pick;
    }
  }
  return 0;  // not reached: count > 0 when dist[sw] is finite and non-zero
}

unsigned Network::hops(unsigned from_sw, unsigned to_sw) {
  const auto& dist = distances(to_sw);
  if (dist[from_sw] == kFar) {
    throw std::runtime_error("hops: switch " + std::to_string(from_sw) + " does not reach switch " +
                             std::to_string(to_sw));
  }
  return dist[from_sw];
}

}  // namespace syncfab::model::collective
