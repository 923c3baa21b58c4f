#include "syncfab/model/software_barrier.hpp"

#include <algorithm>
#include <vector>

#include "syncfab/model/dissemination.hpp"

namespace syncfab::model {

SoftwareBarrier software_barrier(const Torus3D& torus, unsigned fanout, const SoftwareCosts& c) {
  const unsigned p = torus.nodes();
  std::vector<std::vector<DisseminationRound>> s;
  s.reserve(p);
  for (unsigned i = 0; i < p; ++i) {
    s.push_back(dissemination_schedule(i, p, fanout));
  }
  SoftwareBarrier out;
  out.rounds = dissemination_rounds(p, fanout);
  std::vector<std::uint64_t> start(p, 0);
  std::uint64_t lat_sum = 0;
  std::uint64_t messages = 0;
  for (unsigned r = 0; r < out.rounds; ++r) {
    std::vector<std::vector<std::uint64_t>> arrivals(p);
    std::vector<std::uint64_t> sends_done(p);
    for (unsigned i = 0; i < p; ++i) {
      std::uint64_t t = start[i];
      for (const auto j : s[i][r].send_to) {
        t += c.o_send;
        const std::uint64_t lat = c.nic_latency + std::uint64_t{torus.hops(i, j)} * c.hop_latency;
        arrivals[j].push_back(t + lat);
        lat_sum += lat;
        ++messages;
      }
      sends_done[i] = t;
    }
    for (unsigned j = 0; j < p; ++j) {
      auto& a = arrivals[j];
      std::sort(a.begin(), a.end());
      std::uint64_t t = sends_done[j];
      for (const auto at : a) {
        t = std::max(t, at) + c.o_poll;
      }
      start[j] = t;
    }
  }
  out.latency = p == 0 ? 0 : *std::max_element(start.begin(), start.end());
  out.mean_one_way =
      messages == 0 ? 0 : static_cast<double>(lat_sum) / static_cast<double>(messages);
  return out;
}

}  // namespace syncfab::model
