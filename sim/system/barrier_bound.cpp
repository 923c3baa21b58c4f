#include "barrier_bound.hpp"

#include <algorithm>
#include <vector>

#include "syncfab/driver/barrier_schedule.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::tb::system {

std::uint64_t barrier_bound(const sm::Fabric& smf, std::uint64_t link_delay, unsigned k) {
  const auto p = static_cast<unsigned>(smf.hca_count());
  if (p < 2) {
    return 0;
  }
  const std::uint64_t delay = link_delay;
  const sm::MinHop mh(smf);
  const auto wire = [&](unsigned a, unsigned b) {
    const std::uint64_t links =
        mh.distance(smf.attach_switch(smf.hcas()[a]), smf.attach_switch(smf.hcas()[b])) + 2U;
    return links * delay + (links - 1) * kSwitchForward;
  };
  std::vector<driver::BarrierSchedule> sched;
  sched.reserve(p);
  for (unsigned r = 0; r < p; ++r) {
    sched.push_back(driver::build_barrier_schedule(r, p, k));
  }
  std::vector<std::uint64_t> done(p, 0);  // when each NIC ended the previous round
  for (std::size_t i = 0; i < sched[0].rounds.size(); ++i) {
    std::vector<std::uint64_t> next(p, 0);
    for (unsigned r = 0; r < p; ++r) {
      next[r] = done[r];
      for (const std::uint32_t s : sched[r].rounds[i].expect_from) {
        next[r] = std::max(next[r], done[s] + wire(s, r));
      }
    }
    done = std::move(next);
  }
  return *std::max_element(done.begin(), done.end());
}

std::uint64_t group_bound(const sm::Fabric& smf, std::span<const sm::NodeId> members,
                          std::uint64_t link_delay) {
  const sm::MinHop mh(smf);
  std::vector<sm::SwitchIdx> at;
  at.reserve(members.size());
  for (const sm::NodeId m : members) {
    at.push_back(smf.attach_switch(m));
  }
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  if (members.size() < 2) {
    return 0;
  }
  std::uint64_t hops = 0;  // switch-to-switch links on the longest member pair's path
  for (const sm::SwitchIdx a : at) {
    for (const sm::SwitchIdx b : at) {
      hops = std::max<std::uint64_t>(hops, mh.distance(a, b));
    }
  }
  const std::uint64_t links = hops + 2;
  return kNicInject + links * link_delay + (links - 1) * kSwitchForward + kNicEject;
}

}  // namespace syncfab::tb::system
