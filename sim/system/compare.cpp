#include "compare.hpp"

#include <algorithm>
#include <utility>

#include "syncfab/tb/tb.hpp"

namespace syncfab::tb::system {

namespace {

using K = fmt::SwCounter;

std::uint64_t diff(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; }

// Equal, or (when a run saw NACKs) no further apart than `allow`.
void check_near(std::uint64_t rtl, std::uint64_t model, std::uint64_t allow,
                const std::string& what) {
  if (allow == 0) {
    TB_CHECK_EQ(rtl, model) << what << " (RTL vs model; no NACK in either run)";
  } else {
    TB_CHECK(diff(rtl, model) <= allow) << what << ": RTL " << rtl << ", model " << model
                                        << ", more than the NACK allowance " << allow << " apart";
  }
}

}  // namespace

FabricRecord record(SystemFabric& sys, const BarrierResult& run, std::string label) {
  TB_CHECK(sys.idle()) << label << ": record() with flits still on a link";
  FabricRecord r;
  r.label = std::move(label);
  for (unsigned n = 0; n < sys.nic_count(); ++n) {
    // Contexts running at once interleave their completions by timing: the
    // rule is the order within each context.
    std::vector<nic_top::CqWrite> cq = sys.nic(n).cq_writes();
    std::stable_sort(
        cq.begin(), cq.end(),
        [](const nic_top::CqWrite& a, const nic_top::CqWrite& b) { return a.ctx < b.ctx; });
    r.cq.push_back(std::move(cq));
    r.counters.push_back(fabric::read_counters(sys.nic(n).device()));
    r.nacks += r.counters.back().nack_sent;
  }
  for (const auto& l : sys.links()) {
    r.links.push_back({l->ab().packets, l->ba().packets});
    r.pfc_frames += l->ab().packets[static_cast<std::size_t>(PktKind::kPfc)] +
                    l->ba().packets[static_cast<std::size_t>(PktKind::kPfc)];
    r.link_names.push_back(l->a().name + " <-> " + l->b().name);
  }
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    SwitchNode& sw = sys.sw(s);
    auto& ports = r.switch_rx_tx.emplace_back();
    for (unsigned p = 0; p < sw.port_count(); ++p) {
      ports.push_back({sw.counter_all_prios(p, K::kRx), sw.counter_all_prios(p, K::kTx)});
    }
  }
  double sum = 0;
  for (std::size_t b = 0; b < run.last_post.size(); ++b) {
    sum += static_cast<double>(run.last_done[b] - run.last_posted[b]);
  }
  r.latency = run.last_post.empty() ? 0 : sum / static_cast<double>(run.last_post.size());
  return r;
}

double compare(const FabricRecord& rtl, const FabricRecord& model, const CompareBand& band) {
  TB_CHECK_EQ(rtl.cq.size(), model.cq.size()) << "NIC count";
  TB_CHECK_EQ(rtl.links.size(), model.links.size()) << "link count";
  TB_CHECK_EQ(rtl.switch_rx_tx.size(), model.switch_rx_tx.size()) << "switch count";
  const std::uint64_t allow = std::max(rtl.nacks, model.nacks);
  // Which frames a switch sends, and so which a NIC takes, is a timing
  // outcome; that PFC ran is not.
  TB_CHECK_EQ(rtl.pfc_frames > 0, model.pfc_frames > 0)
      << "PFC frames on the links: RTL " << rtl.pfc_frames << ", model " << model.pfc_frames;
  const bool pfc = rtl.pfc_frames > 0;

  for (std::size_t n = 0; n < rtl.cq.size(); ++n) {
    const std::string nic = "NIC " + std::to_string(n);
    TB_CHECK_EQ(rtl.cq[n].size(), model.cq[n].size()) << nic << ": completion records";
    for (std::size_t i = 0; i < rtl.cq[n].size(); ++i) {
      const nic_top::CqWrite& a = rtl.cq[n][i];
      const nic_top::CqWrite& b = model.cq[n][i];
      const std::string rec = nic + " completion " + std::to_string(i);
      TB_CHECK_EQ(a.ctx, b.ctx) << rec << ": context";
      TB_CHECK_EQ(a.epoch, b.epoch) << rec << ": epoch";
      TB_CHECK_EQ(a.status, b.status) << rec << ": status";
      TB_CHECK_EQ(a.err, b.err) << rec << ": error code";
    }
    const fabric::Counters& a = rtl.counters[n];
    const fabric::Counters& b = model.counters[n];
    TB_CHECK_EQ(a.recv, b.recv) << nic << ": CNT_NOTIF_RECV";
    TB_CHECK_EQ(a.completion, b.completion) << nic << ": CNT_COMPLETION";
    TB_CHECK_EQ(a.error, b.error) << nic << ": CNT_ERROR";
    TB_CHECK_EQ(a.drop, b.drop) << nic << ": CNT_DROP";
    TB_CHECK_EQ(a.dup, b.dup) << nic << ": CNT_DUP";
    TB_CHECK_EQ(a.arrive_sent, b.arrive_sent) << nic << ": CNT_ARRIVE_SENT";
    TB_CHECK_EQ(a.arrive_recv, b.arrive_recv) << nic << ": CNT_ARRIVE_RECV";
    TB_CHECK_EQ(a.release_sent, b.release_sent) << nic << ": CNT_RELEASE_SENT";
    TB_CHECK_EQ(a.release_recv, b.release_recv) << nic << ": CNT_RELEASE_RECV";
    TB_CHECK_EQ(a.group_retry, b.group_retry) << nic << ": CNT_GROUP_RETRY";
    if (!pfc) {
      TB_CHECK_EQ(a.pfc_rx, b.pfc_rx) << nic << ": CNT_PFC_RX";
      TB_CHECK_EQ(a.pause_rx, b.pause_rx) << nic << ": CNT_PAUSE_RX";
    }
    TB_CHECK_EQ(a.sent - a.retry, b.sent - b.retry) << nic << ": CNT_NOTIF_SENT - CNT_RETRY";
    check_near(a.sent, b.sent, allow, nic + ": CNT_NOTIF_SENT");
    check_near(a.retry, b.retry, allow, nic + ": CNT_RETRY");
    check_near(a.nack_sent, b.nack_sent, allow, nic + ": CNT_NACK_SENT");
    check_near(a.nack_recv, b.nack_recv, allow, nic + ": CNT_NACK_RECV");
  }

  for (std::size_t l = 0; l < rtl.links.size(); ++l) {
    for (unsigned d = 0; d < 2; ++d) {
      const std::string dir = rtl.link_names[l] + (d == 0 ? " (a -> b)" : " (b -> a)");
      const auto& a = rtl.links[l][d];
      const auto& b = model.links[l][d];
      const auto at = [](const auto& v, PktKind k) { return v[static_cast<std::size_t>(k)]; };
      TB_CHECK_EQ(at(a, PktKind::kAck), at(b, PktKind::kAck)) << dir << ": ACKs";
      TB_CHECK_EQ(at(a, PktKind::kData), at(b, PktKind::kData)) << dir << ": data packets";
      TB_CHECK_EQ(at(a, PktKind::kOther), at(b, PktKind::kOther)) << dir << ": other packets";
      for (const PktKind k : {PktKind::kArrive, PktKind::kRelease, PktKind::kCombArrive,
                              PktKind::kCombRelease, PktKind::kCombShare}) {
        TB_CHECK_EQ(at(a, k), at(b, k)) << dir << ": " << to_string(k) << "s";
      }
      check_near(at(a, PktKind::kNotify), at(b, PktKind::kNotify), allow, dir + ": NOTIFYs");
      check_near(at(a, PktKind::kNack), at(b, PktKind::kNack), allow, dir + ": NACKs");
    }
  }

  for (std::size_t s = 0; s < rtl.switch_rx_tx.size(); ++s) {
    for (std::size_t p = 0; p < rtl.switch_rx_tx[s].size(); ++p) {
      const std::string port = "switch " + std::to_string(s) + " port " + std::to_string(p);
      check_near(rtl.switch_rx_tx[s][p][0], model.switch_rx_tx[s][p][0], 2 * allow, port + " RX");
      check_near(rtl.switch_rx_tx[s][p][1], model.switch_rx_tx[s][p][1], 2 * allow, port + " TX");
    }
  }

  TB_CHECK(model.latency > 0) << "model barrier latency " << model.latency;
  const double ratio = rtl.latency / model.latency;
  TB_CHECK(ratio >= band.lo && ratio <= band.hi)
      << "barrier latency RTL " << rtl.latency << " / model " << model.latency << " = " << ratio
      << ", outside [" << band.lo << ", " << band.hi << "]";
  return ratio;
}

}  // namespace syncfab::tb::system
