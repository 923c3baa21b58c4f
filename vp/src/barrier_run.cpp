#include "syncfab/vp/barrier_run.hpp"

#include <algorithm>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <utility>

#include <syncfab/hw/nic_regs.hpp>

namespace syncfab::vp {

BarrierRun::BarrierRun(BarrierRunConfig cfg, const PlatformConfig& platform)
    : cfg_(std::move(cfg)),
      nodes_(platform.fabric.x * platform.fabric.y * platform.fabric.z),
      region_{platform.fabric.mem_base, platform.fabric.mem_size},
      logs_(nodes_) {
  if (cfg_.ks.empty()) {
    throw std::invalid_argument("barrier run: no fan-out");
  }
}

void BarrierRun::program(unsigned node, Host& host) {
  NodeLog& log = logs_.at(node);
  std::mt19937_64 rng(cfg_.seed * 0x9E3779B97F4A7C15ULL + node);
  driver::NicOptions o;
  o.poll_interval = cfg_.poll_interval;
  o.clock = [&host] { return host.now(); };
  std::vector<std::uint16_t> lids;
  for (unsigned n = 0; n < nodes_; ++n) {
    lids.push_back(model::Fabric::lid_of(n));
  }
  try {
    log.completions_before = host.read32(hw::nic::CNT_COMPLETION.offset);
    driver::Nic nic(host, host.mem, region_, o);
    std::vector<driver::BarrierContext> ctxs;
    for (unsigned i = 0; i < cfg_.ks.size(); ++i) {
      ctxs.push_back(nic.open_context(driver::ContextConfig{i, node, nodes_, cfg_.ks[i], lids}));
    }
    const auto skew_ns = static_cast<std::uint64_t>(cfg_.max_skew.to_seconds() * 1e9);
    for (unsigned i = 0; i < ctxs.size(); ++i) {
      for (unsigned b = 0; b < cfg_.barriers; ++b) {
        host.compute(sc_core::sc_time(static_cast<double>(rng() % (skew_ns + 1)), sc_core::SC_NS));
        log.arrivals.push_back(sc_core::sc_time_stamp());
        const bool sdq = cfg_.submit == BarrierRunConfig::Submit::kSdq ||
                         (cfg_.submit == BarrierRunConfig::Submit::kAlternate && b % 2 == 1);
        ctxs[i].arrive(sdq ? driver::SubmitPath::kSdq : driver::SubmitPath::kHdq, cfg_.wait);
        // The driver's wait starts its budget at this device time, so it
        // cannot time out before the deadline.
        host.set_wait_deadline(host.now() + cfg_.timeout);
        const bool completed = ctxs[i].wait(cfg_.timeout);
        host.set_wait_deadline(std::nullopt);
        if (!completed) {
          throw std::runtime_error("node " + std::to_string(node) + ": barrier " +
                                   std::to_string(b) + " of fan-out " + std::to_string(cfg_.ks[i]) +
                                   " did not complete in " + std::to_string(cfg_.timeout.count()) +
                                   " ns");
        }
        ++log.completed;
      }
    }
    log.stats = nic.stats();
    log.completions_after = host.read32(hw::nic::CNT_COMPLETION.offset);
    ctxs.clear();
    nic.close();
  } catch (const std::exception& e) {
    log.error = e.what();
  }
}

std::uint64_t BarrierRun::completions() const {
  std::uint64_t c = 0;
  for (const auto& l : logs_) {
    c += l.completed;
  }
  return c;
}

std::vector<std::string> BarrierRun::check(Platform& p) const {
  std::vector<std::string> bad;
  const auto want = static_cast<unsigned>(cfg_.ks.size()) * cfg_.barriers;
  const auto period = p.config().period;
  for (unsigned n = 0; n < nodes_; ++n) {
    const auto& l = logs_[n];
    const std::string who = "node " + std::to_string(n) + ": ";
    if (!l.error.empty()) {
      bad.push_back(who + l.error);
    }
    if (l.completed != want) {
      bad.push_back(who + std::to_string(l.completed) + " barriers completed, not " +
                    std::to_string(want));
    }
    if (l.error.empty() && l.stats.unclaimed != 0) {
      bad.push_back(who + std::to_string(l.stats.unclaimed) + " unclaimed CQ entries");
    }
    const auto cnt = l.completions_after;
    if (l.error.empty() && cnt != l.completions_before + want) {
      bad.push_back(who + "CNT_COMPLETION " + std::to_string(cnt) + ", not " +
                    std::to_string(l.completions_before) + " + " + std::to_string(want));
    }
  }
  // Safety: barrier b of context i completes at no NIC before the last rank
  // began to arrive at it.
  std::vector<std::vector<model::CompletionRecord>> comps;
  for (unsigned n = 0; n < nodes_; ++n) {
    comps.push_back(p.nic(n).completions());
    const auto earlier = std::min<std::size_t>(logs_[n].completions_before, comps[n].size());
    if (logs_[n].error.empty() && comps[n].size() - earlier != want) {
      bad.push_back("node " + std::to_string(n) + ": " + std::to_string(comps[n].size() - earlier) +
                    " completion records, not " + std::to_string(want));
    }
  }
  for (unsigned i = 0; i < cfg_.ks.size(); ++i) {
    for (unsigned b = 0; b < cfg_.barriers; ++b) {
      const std::size_t slot = std::size_t{i} * cfg_.barriers + b;
      sc_core::sc_time last = sc_core::SC_ZERO_TIME;
      for (const auto& l : logs_) {
        if (slot < l.arrivals.size()) {
          last = std::max(last, l.arrivals[slot]);
        }
      }
      for (unsigned n = 0; n < nodes_; ++n) {
        unsigned seen = 0;
        const auto& all = comps[n];
        const auto earlier = std::min<std::size_t>(logs_[n].completions_before, all.size());
        for (auto it = all.begin() + static_cast<std::ptrdiff_t>(earlier); it != all.end(); ++it) {
          const auto& r = *it;
          if (r.ctx != i || seen++ != b) {
            continue;
          }
          const auto at = period * static_cast<double>(r.cycle);
          if (r.status != fmt::CqStatus::kOk) {
            bad.push_back("node " + std::to_string(n) + ": barrier " + std::to_string(b) +
                          " of fan-out " + std::to_string(cfg_.ks[i]) + " completed with an error");
          } else if (at < last) {
            bad.push_back("node " + std::to_string(n) + ": barrier " + std::to_string(b) +
                          " of fan-out " + std::to_string(cfg_.ks[i]) + " completed at " +
                          at.to_string() + ", before the last rank arrived at " + last.to_string());
          }
        }
      }
    }
  }
  return bad;
}

}  // namespace syncfab::vp
