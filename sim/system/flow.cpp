#include "flow.hpp"

#include <chrono>
#include <random>

#include "nic_top_bench.hpp"

namespace syncfab::tb::system {

namespace {

using Clock = std::chrono::steady_clock;

// Pause time of a PFC frame the switches send (quanta of the NIC's reset
// cycles per quantum), and the thresholds: every buffered cell pauses.
constexpr std::uint16_t kQuanta = 16;

class StepTimer {
 public:
  StepTimer(FlowResult& r, SystemFabric* sys) : r_(r), sys_(sys) {}
  void begin() {
    t0_ = Clock::now();
    c0_ = sys_ != nullptr ? sys_->cycle() : 0;
  }
  void end(std::string name) {
    const double s = std::chrono::duration<double>(Clock::now() - t0_).count();
    const std::uint64_t c = sys_ != nullptr ? sys_->cycle() - c0_ : 0;
    r_.steps.push_back({std::move(name), s, c});
  }
  void attach(SystemFabric* sys) { sys_ = sys; }

 private:
  FlowResult& r_;
  SystemFabric* sys_;
  Clock::time_point t0_;
  std::uint64_t c0_ = 0;
};

double mean_latency(const BarrierResult& b) {
  double sum = 0;
  for (std::size_t i = 0; i < b.last_done.size(); ++i) {
    sum += static_cast<double>(b.last_done[i] - b.last_posted[i]);
  }
  return b.last_done.empty() ? 0 : sum / static_cast<double>(b.last_done.size());
}

}  // namespace

FlowResult run_flow(TestContext& ctx, const sm::Fabric& smf, const SystemRouting& routing,
                    const FlowOptions& opts, const std::string& label) {
  FlowResult res;
  res.label = label;
  StepTimer t(res, nullptr);
  t.begin();
  SystemFabric sys(ctx, smf, opts.cfg);
  t.end("build");
  t.attach(&sys);

  t.begin();
  sys.start(nic_top::nic_options(ctx.sim(), opts.retry_delay));
  std::uint64_t pause = 0;
  if (opts.pfc) {
    pause = std::uint64_t{kQuanta} * nic_top::kCpqReset;
    driver::PfcPortConfig pc{};
    pc[nic_top::kTcReset] = driver::PfcPriority{true, 1, 1, kQuanta};
    configure_pfc(sys, driver::PfcTiming{nic_top::kCpqReset, 64}, pc, 1);
  }
  t.end(opts.pfc ? "start + PFC" : "start");

  t.begin();
  res.program = program_and_verify(sys, routing);
  t.end("program");

  t.begin();
  // The same draws on every backend: the host sweeps' order.
  std::mt19937_64 rng(ctx.seed());
  BarrierResult all;
  for (const unsigned k : opts.ks) {
    BarrierRun run;
    run.ctx = k;  // one context per fan-out (the driver refuses one the NIC lacks)
    run.k = k;
    run.barriers = opts.barriers;
    run.limit = opts.limit;
    run.pause_cycles = pause;
    run.common_start = true;
    BarrierResult r = run_barriers(sys, run, rng);
    res.latency.push_back(mean_latency(r));
    all.last_post.insert(all.last_post.end(), r.last_post.begin(), r.last_post.end());
    all.last_posted.insert(all.last_posted.end(), r.last_posted.begin(), r.last_posted.end());
    all.last_done.insert(all.last_done.end(), r.last_done.begin(), r.last_done.end());
    all.epochs.insert(all.epochs.end(), r.epochs.begin(), r.epochs.end());
    res.per_k.push_back(std::move(r));
  }
  t.end("barriers");

  t.begin();
  sys.idle_cycles(200);
  res.traffic = check_traffic(sys);
  std::uint64_t sends = 0;
  for (const BarrierResult& r : res.per_k) {
    sends += r.sends_per_barrier * opts.barriers;
  }
  TB_CHECK_EQ(res.traffic.notify - res.traffic.retries, sends)
      << label << ": NOTIFYs sent = the schedules' sends";
  if (!opts.pfc) {
    TB_CHECK_EQ(res.traffic.pfc_frames, 0U) << label << ": no PFC frame without PFC";
  }
  res.record = record(sys, all, label);
  t.end("check");
  return res;
}

}  // namespace syncfab::tb::system
