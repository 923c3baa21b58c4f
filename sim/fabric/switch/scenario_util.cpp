#include "scenario_util.hpp"

#include <iomanip>
#include <ostream>
#include <sstream>

namespace syncfab::tb::swfab {

namespace drv = syncfab::driver;
using K = fmt::SwCounter;

void configure_sched_all(Fabric& f, const drv::SchedConfig& cfg) {
  f.program_all([&](unsigned s, drv::Switch& d) {
    for (unsigned p = 0; p < kPorts; ++p) {
      if (f.link_at(switch_end(s, p))) {
        d.configure_scheduler(p, cfg);
      }
    }
  });
}

const std::vector<K>& drop_kinds() {
  static const std::vector<K> kinds{K::kDropWred,     K::kDropNoRoute, K::kDropBadPkt,
                                    K::kDropDisabled, K::kDropWd,      K::kDropBuf};
  return kinds;
}

std::uint64_t drops_at(const CounterSnapshot& snap, unsigned prio) {
  std::uint64_t n = 0;
  for (const K k : drop_kinds()) {
    n += snap.total(k, prio);
  }
  return n;
}

std::string unicast_conservation(const CounterSnapshot& snap, const Fabric& f) {
  std::ostringstream out;
  for (unsigned s = 0; s < f.switch_count(); ++s) {
    const std::uint64_t rx = snap.sum(s, K::kRx);
    const std::uint64_t tx = snap.sum(s, K::kTx);
    std::uint64_t drops = 0;
    for (const K k : drop_kinds()) {
      drops += snap.sum(s, k);
    }
    if (rx != tx + drops) {
      out << "switch " << f.switch_name(s) << ": RX " << rx << " != TX " << tx << " + drops "
          << drops << "; ";
    }
  }
  return out.str();
}

std::string counters_match_links(const CounterSnapshot& snap, const Fabric& f) {
  std::ostringstream out;
  for (unsigned s = 0; s < f.switch_count(); ++s) {
    for (unsigned p = 0; p < kPorts; ++p) {
      if (!f.link_at(switch_end(s, p))) {
        continue;
      }
      const std::uint64_t tx = snap.sum(s, K::kTx, p);
      const std::uint64_t rx = snap.sum(s, K::kRx, p);
      const std::uint64_t link_out = f.sent_by(switch_end(s, p)).packets;
      const std::uint64_t link_in = f.sent_to(switch_end(s, p)).packets;
      if (tx != link_out || rx != link_in) {
        out << f.switch_name(s) << " port " << p << ": TX " << tx << " vs link " << link_out
            << ", RX " << rx << " vs link " << link_in << "; ";
      }
    }
  }
  return out.str();
}

std::string fixed(double v, int precision) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << v;
  return o.str();
}

void Summary::add(const std::string& what, double value, int precision) {
  add(what, fixed(value, precision));
}

void Summary::print(std::ostream& out) const {
  out << "\n### " << title_ << "\n\n| figure | value |\n|---|---|\n";
  for (const auto& [k, v] : rows_) {
    out << "| " << k << " | " << v << " |\n";
  }
  out << '\n';
}

}  // namespace syncfab::tb::swfab
