#include "delivery_check.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>

namespace syncfab::tb::swfab {

namespace {
constexpr std::size_t kMaxErrors = 10;

void note(DeliveryReport& r, const std::string& what) {
  if (r.errors.size() < kMaxErrors) {
    r.errors.push_back(what);
  }
}
}  // namespace

std::ostream& operator<<(std::ostream& out, const DeliveryReport& r) {
  out << "expected " << r.expected << ", delivered " << r.delivered << ", lost " << r.lost
      << ", duplicates " << r.duplicates << ", out of order " << r.out_of_order << ", unexpected "
      << r.unexpected << ", malformed " << r.malformed;
  for (const auto& e : r.errors) {
    out << "\n  " << e;
  }
  return out;
}

std::vector<unsigned> unicast_receiver(const Fabric& f, unsigned flow) {
  const std::uint16_t lid = f.flow(flow).spec.dst_lid;
  for (unsigned h = 0; h < f.host_count(); ++h) {
    if (f.host_lid(h) == lid) {
      return {h};
    }
  }
  return {};
}

DeliveryReport check_delivery(const Fabric& f, std::span<const unsigned> flows,
                              const std::function<std::vector<unsigned>(unsigned)>& receivers,
                              const std::function<bool(unsigned)>& lossy) {
  DeliveryReport r;
  std::map<unsigned, std::vector<unsigned>> rx_of;  // flow -> receivers
  for (const unsigned fl : flows) {
    auto v = receivers(fl);
    std::sort(v.begin(), v.end());
    rx_of[fl] = v;
    if (!lossy(fl)) {
      r.expected += f.flow(fl).sent * v.size();
    }
  }
  // (flow, host) -> seqs in arrival order
  std::map<std::pair<unsigned, unsigned>, std::vector<std::uint64_t>> got;
  for (unsigned h = 0; h < f.host_count(); ++h) {
    for (const RxPacket& p : f.received(h)) {
      const auto it = rx_of.find(p.id.flow);
      if (it == rx_of.end()) {
        continue;  // a flow this check is not about
      }
      const FlowState& fs = f.flow(p.id.flow);
      std::ostringstream where;
      where << "host " << f.host_name(h) << " flow " << p.id.flow << " seq " << p.id.seq;
      if (!std::binary_search(it->second.begin(), it->second.end(), h)) {
        ++r.unexpected;
        note(r, where.str() + ": not a receiver of this flow");
        continue;
      }
      if (p.flits != p.len_flits || p.len_flits != fs.spec.len_flits ||
          p.dst_lid != fs.spec.dst_lid || p.src_lid != f.host_lid(fs.src_host) ||
          p.id.src_host != fs.src_host || p.id.seq >= fs.sent) {
        ++r.malformed;
        note(r, where.str() + ": header or length changed (" + std::to_string(p.flits) +
                    " flits, len_flits " + std::to_string(p.len_flits) + ")");
        continue;
      }
      got[{p.id.flow, h}].push_back(p.id.seq);
    }
  }
  for (const auto& [fl, rxs] : rx_of) {
    const std::uint64_t sent = f.flow(fl).sent;
    for (const unsigned h : rxs) {
      const auto& seqs = got[{fl, h}];
      std::vector<char> seen(sent, 0);
      std::uint64_t highest = 0;
      bool any = false;
      for (const std::uint64_t s : seqs) {
        if (seen[s] != 0) {
          ++r.duplicates;
          note(r, "host " + f.host_name(h) + " flow " + std::to_string(fl) + " seq " +
                      std::to_string(s) + ": duplicate");
          continue;
        }
        seen[s] = 1;
        if (!lossy(fl)) {
          ++r.delivered;
        }
        if (any && s < highest) {
          ++r.out_of_order;
          note(r, "host " + f.host_name(h) + " flow " + std::to_string(fl) + " seq " +
                      std::to_string(s) + " after seq " + std::to_string(highest));
        }
        highest = std::max(highest, s);
        any = true;
      }
      if (lossy(fl)) {
        continue;
      }
      for (std::uint64_t s = 0; s < sent; ++s) {
        if (seen[s] == 0) {
          ++r.lost;
          note(r, "host " + f.host_name(h) + " flow " + std::to_string(fl) + " seq " +
                      std::to_string(s) + ": lost");
        }
      }
    }
  }
  return r;
}

}  // namespace syncfab::tb::swfab
