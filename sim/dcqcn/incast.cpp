// The incast of incast.hpp: golden NICs (data path on) around one golden
// switch, programmed through the unchanged drivers (driver::Switch on the
// switch's CSR block, driver::DataFlows on each NIC).
#include "incast.hpp"

#include "barrier_run.hpp"
#include "syncfab/sim/nearest_rank.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>

#include <syncfab/driver/data_flows.hpp>
#include <syncfab/driver/switch.hpp>
#include <syncfab/hw/host_memory.hpp>
#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/model/model_device.hpp>
#include <syncfab/model/switch_model.hpp>

namespace syncfab::sim::dcqcn {

namespace {

using model::Flit;
using model::LinkFlit;

std::uint16_t lid_of(unsigned port) { return static_cast<std::uint16_t>(port + 1); }

struct Nic {
  explicit Nic(std::uint16_t lid)
      : mem(0x1000'0000, 1 << 12),
        eng(config(lid), mem),
        dev(
            eng, mem, [] {}, 1) {}
  static model::EngineConfig config(std::uint16_t lid) {
    model::EngineConfig c;
    c.lid = lid;
    c.num_ctx = 1;
    c.data_path = true;
    return c;
  }
  hw::HostMemory mem;
  model::BarrierEngine eng;
  model::ModelDevice dev;
  std::deque<std::pair<std::uint64_t, std::vector<LinkFlit>>> inbound;  // due cycle, flits
  std::size_t tx_seen = 0;
  std::size_t pfc_seen = 0;
  std::uint64_t rx_free = 0;  // first cycle the switch port can take a new packet
};

double jain(const std::vector<double>& x) {
  const double s = std::accumulate(x.begin(), x.end(), 0.0);
  double q = 0;
  for (double v : x) {
    q += v * v;
  }
  return q == 0 ? 0 : s * s / (static_cast<double>(x.size()) * q);
}

std::uint64_t switch_total(driver::Switch& drv, unsigned ports, unsigned prio,
                           fmt::SwCounter kind) {
  std::uint64_t n = 0;
  for (unsigned p = 0; p < ports; ++p) {
    n += drv.counter(p, prio, kind);
  }
  return n;
}

// The time series' running state between samples: what the receiver took
// per sender, the bottleneck queue's maximum, the senders' pauses, and the
// last value of every counter a sample reports as a difference.
struct SeriesState {
  explicit SeriesState(unsigned n) : senders(n), flits(n, 0) {}

  void delivered(const std::vector<LinkFlit>& pkt) {
    const fmt::PktHdr h(pkt.front().data);
    const unsigned s = h.src_lid() - 1U;  // lid_of(port) = port + 1
    if (h.pkt_type() == fmt::PktType::kData && s < senders) {
      flits[s] += h.len_flits();
    }
  }
  template <typename Paused>
  void cycle(std::uint64_t t, std::uint32_t queue, Paused&& paused) {
    queue_now = queue;
    queue_max = std::max(queue_max, queue);
    while (!pause_due.empty() && pause_due.front() <= t) {
      ++pause_rx;
      pause_due.pop_front();
    }
    for (unsigned s = 0; s < senders; ++s) {
      paused_cycles += paused(s) ? 1 : 0;
    }
  }
  IncastSample take(std::uint64_t end) {
    IncastSample smp;
    smp.end = end;
    smp.length = end - last_end;
    smp.flow_flits = flits;
    smp.queue_cells = queue_now;
    smp.queue_max = queue_max;
    smp.pause_rx = pause_rx;
    smp.paused_cycles = paused_cycles;
    std::fill(flits.begin(), flits.end(), 0);
    queue_max = 0;
    pause_rx = 0;
    paused_cycles = 0;
    last_end = end;
    return smp;
  }
  std::uint64_t delta(unsigned which, std::uint64_t total) {
    const std::uint64_t d = total - last.at(which);
    last.at(which) = total;
    return d;
  }

  unsigned senders;
  std::vector<std::uint64_t> flits;
  std::deque<std::uint64_t> pause_due;  // arrival cycles of pause frames to the senders
  std::uint32_t queue_now = 0;
  std::uint32_t queue_max = 0;
  std::uint64_t pause_rx = 0;
  std::uint64_t paused_cycles = 0;
  std::uint64_t last_end = 0;
  std::array<std::uint64_t, 5> last{};
};

}  // namespace

BarrierStats barrier_stats(const IncastResult& r, std::uint64_t from) {
  std::vector<std::uint64_t> lat;
  for (const auto& b : r.barriers) {
    if (b.posted >= from) {
      lat.push_back(b.latency);
    }
  }
  BarrierStats st;
  st.count = lat.size();
  if (lat.empty()) {
    return st;
  }
  std::sort(lat.begin(), lat.end());
  st.median = sim::nearest_rank(lat, 0.5);
  st.p99 = sim::nearest_rank(lat, 0.99);
  st.max = lat.back();
  return st;
}

IncastResult run_incast(const IncastConfig& cfg) {
  if (cfg.senders == 0 || cfg.senders + 1 > hw::switch_regs::kMaxPorts) {
    throw std::invalid_argument("incast: senders " + std::to_string(cfg.senders) +
                                " out of range 1.." +
                                std::to_string(hw::switch_regs::kMaxPorts - 1));
  }
  if (cfg.warmup >= cfg.cycles) {
    throw std::invalid_argument("incast: warmup " + std::to_string(cfg.warmup) +
                                " is not below cycles " + std::to_string(cfg.cycles));
  }
  const unsigned ports = cfg.senders + 1;
  const unsigned rx_port = cfg.senders;
  const unsigned pkt_flits = cfg.payload_flits + 1;
  IncastResult r;

  model::SwitchModelParams sp;
  sp.csr = model::SwitchCsrParams{ports, cfg.buf_cells, 64, 16};
  model::SwitchModel sw(sp);
  driver::Switch drv(sw.csr());
  drv.enable(true);
  driver::SchedConfig sc;
  sc.weight.fill(static_cast<std::uint8_t>(std::min(pkt_flits, 255U)));
  driver::PfcPortConfig pfc{};
  pfc[cfg.prio] = {true, static_cast<std::uint16_t>(cfg.xoff), static_cast<std::uint16_t>(cfg.xon),
                   static_cast<std::uint16_t>(cfg.quanta)};
  const bool barriers = cfg.barrier_every != 0;
  const bool own_barrier_prio = barriers && cfg.barrier_prio != cfg.prio;
  if (own_barrier_prio) {
    if (cfg.barrier_prio >= fmt::kNumPrio) {
      throw std::invalid_argument("incast: barrier priority " + std::to_string(cfg.barrier_prio) +
                                  " is not below " + std::to_string(fmt::kNumPrio));
    }
    pfc[cfg.barrier_prio] = {true, static_cast<std::uint16_t>(cfg.barrier_xoff),
                             static_cast<std::uint16_t>(cfg.barrier_xon),
                             static_cast<std::uint16_t>(cfg.quanta)};
    sc.sp_mask = static_cast<std::uint8_t>(1U << cfg.barrier_prio);
  }
  drv.set_pfc_timing(driver::PfcTiming{8, 64});
  for (unsigned p = 0; p < ports; ++p) {
    drv.set_lft(lid_of(p), p);
    drv.configure_scheduler(p, sc);
    // The headroom covers the store and forward at the NIC end too.
    drv.configure_pfc(p, pfc, driver::LinkParams{cfg.link_delay + pkt_flits, pkt_flits});
  }
  drv.configure_wred(
      rx_port, cfg.prio,
      driver::WredQueue{true, static_cast<std::uint16_t>(cfg.kmin),
                        static_cast<std::uint16_t>(cfg.kmax), static_cast<std::uint8_t>(cfg.pmax)});

  if (cfg.ecn_dynamic) {
    model::EcnDynConfig dyn = cfg.ecn_dyn;
    dyn.enable = static_cast<std::uint8_t>(1U << cfg.prio);
    sw.set_ecn_dyn(dyn);
  }
  for (const auto& st : cfg.fanin) {
    if (st.active > cfg.senders) {
      throw std::invalid_argument("incast: fan-in step to " + std::to_string(st.active) +
                                  " senders of " + std::to_string(cfg.senders));
    }
  }

  std::vector<std::unique_ptr<Nic>> nics;
  for (unsigned p = 0; p < ports; ++p) {
    nics.push_back(std::make_unique<Nic>(lid_of(p)));
  }
  driver::DcqcnConfig dc;
  dc.rp_enable = cfg.dcqcn;
  dc.np_enable = cfg.dcqcn;
  dc.cnp_interval = cfg.cnp_interval;
  dc.alpha_timer = cfg.alpha_timer;
  dc.rate_timer = cfg.rate_timer;
  dc.byte_counter = cfg.byte_counter;
  for (auto& n : nics) {
    driver::DataFlows(n->dev).configure(dc);
  }
  std::mt19937_64 rng(cfg.seed);
  std::vector<std::uint64_t> start_at(cfg.senders);
  for (auto& s : start_at) {
    s = rng() % (cfg.start_spread + 1);
  }
  // Enough packets to keep every sender busy to the end.
  const auto packets = static_cast<std::uint32_t>(cfg.cycles / pkt_flits + 1);

  std::unique_ptr<BarrierRun> barrier_run;
  if (barriers) {
    std::vector<model::BarrierEngine*> engines;
    engines.reserve(nics.size());
    for (auto& n : nics) {
      engines.push_back(&n->eng);
    }
    barrier_run = std::make_unique<BarrierRun>(engines, cfg.barrier_prio, cfg.barrier_fanout,
                                               nics[0]->mem.base() + 0x800);
  }
  std::uint64_t barrier_due = cfg.barrier_first;
  SeriesState series(cfg.senders);

  std::vector<std::uint64_t> window_flits(cfg.senders, 0);
  std::uint64_t window_total = 0;
  std::vector<std::uint64_t> qhist(0x10000, 0);
  std::size_t step = 0;
  unsigned active = cfg.senders;
  std::vector<bool> sending(cfg.senders, false);
  for (std::uint64_t t = 0; t < cfg.cycles; ++t) {
    if (barrier_run) {
      const bool may_post =
          !barrier_run->running() && t >= barrier_due && t + cfg.barrier_every <= cfg.cycles;
      barrier_run->before_step(may_post);
      if (may_post) {
        while (barrier_due <= t) {
          barrier_due += cfg.barrier_every;
        }
      }
    }
    for (; step < cfg.fanin.size() && cfg.fanin[step].at <= t; ++step) {
      // Senders joining at a step start within join_spread cycles of it.
      for (unsigned s = active; s < cfg.fanin[step].active; ++s) {
        start_at[s] = std::max(start_at[s], t + rng() % (cfg.join_spread + 1));
      }
      active = cfg.fanin[step].active;
    }
    for (unsigned s = 0; s < cfg.senders; ++s) {
      if (sending[s] && s >= active) {
        driver::DataFlows(nics[s]->dev).stop(0);
        sending[s] = false;
      }
      if (cfg.flows && !sending[s] && s < active && t >= start_at[s]) {
        sending[s] = true;
        driver::FlowSpec f;
        f.dst_lid = lid_of(rx_port);
        f.flow_label = s + 1;
        f.payload_flits = cfg.payload_flits;
        f.packets = packets;
        f.prio = cfg.prio;
        driver::DataFlows(nics[s]->dev).start(0, f);
      }
    }
    // Deliveries due now, then one cycle everywhere.
    for (auto& n : nics) {
      while (!n->inbound.empty() && n->inbound.front().first <= t) {
        if (n.get() == nics[rx_port].get()) {
          series.delivered(n->inbound.front().second);
        }
        n->eng.receive(n->inbound.front().second);
        n->inbound.pop_front();
      }
      n->eng.step();
    }
    for (unsigned p = 0; p < ports; ++p) {
      Nic& n = *nics[p];
      while (auto pkt = n.eng.transmit_flits()) {
        std::vector<Flit> flits;
        for (const auto& f : *pkt) {
          flits.push_back(f.data);
        }
        // Store and forward: the packet's last flit left in t, its flits
        // arrive back to back from link_delay later (never overlapping the
        // port's previous packet).
        const std::uint64_t first = std::max(t + 1 + cfg.link_delay, n.rx_free);
        sw.receive(p, flits, first);
        n.rx_free = first + flits.size();
      }
    }
    if (t >= cfg.warmup) {
      ++qhist[std::min<std::uint32_t>(sw.queue_cells(rx_port, cfg.prio), 0xFFFFU)];
      const model::EcnController& ec = sw.ecn_controller(rx_port, cfg.prio);
      const unsigned level = cfg.ecn_dynamic ? ec.level() : cfg.pmax;
      r.ecn_level_min = t == cfg.warmup ? level : std::min(r.ecn_level_min, level);
      r.ecn_level_max = std::max(r.ecn_level_max, level);
      r.ecn_shift_max = std::max(r.ecn_shift_max, ec.shift());
    }
    sw.tick();
    for (unsigned p = 0; p < ports; ++p) {
      Nic& n = *nics[p];
      const auto& tx = sw.transmitted(p);
      for (; n.tx_seen < tx.size(); ++n.tx_seen) {
        const model::TxPacket& c = tx[n.tx_seen];
        std::vector<LinkFlit> flits;
        for (std::size_t i = 0; i < c.flits.size(); ++i) {
          flits.push_back(LinkFlit{c.flits[i], i + 1 == c.flits.size()});
        }
        n.inbound.emplace_back(c.last_cycle + cfg.link_delay, std::move(flits));
        if (p == rx_port && c.header().pkt_type() == fmt::PktType::kData) {
          // Flits inside the window.
          const std::uint64_t lo = std::max(c.first_cycle, cfg.warmup);
          if (c.last_cycle >= lo) {
            const std::uint64_t in = c.last_cycle - lo + 1;
            window_total += in;
            if (c.in_port < cfg.senders) {
              window_flits[c.in_port] += in;
            }
          }
        }
      }
      const auto& frames = sw.pfc_sent(p);
      for (; n.pfc_seen < frames.size(); ++n.pfc_seen) {
        const model::TxPfcFrame& f = frames[n.pfc_seen];
        std::vector<LinkFlit> flits{LinkFlit{f.flits[0], false}, LinkFlit{f.flits[1], true}};
        n.inbound.emplace_back(f.first_cycle + 1 + cfg.link_delay, std::move(flits));
        if (cfg.sample_every != 0 && p < cfg.senders && (f.class_enable >> cfg.prio & 1U) != 0 &&
            f.quanta.at(cfg.prio) != 0) {
          series.pause_due.push_back(f.first_cycle + 1 + cfg.link_delay);
        }
      }
    }
    if (barrier_run) {
      barrier_run->poll();
    }
    if (cfg.sample_every != 0) {
      series.cycle(t, sw.queue_cells(rx_port, cfg.prio),
                   [&](unsigned s) { return nics[s]->eng.pfc_rx().timer(cfg.prio) != 0; });
      if ((t + 1) % cfg.sample_every == 0 || t + 1 == cfg.cycles) {
        IncastSample smp = series.take(t + 1);
        smp.pause_tx =
            series.delta(0, switch_total(drv, ports, cfg.prio, fmt::SwCounter::kPauseTx));
        smp.barrier_pause_tx = series.delta(
            1, own_barrier_prio
                   ? switch_total(drv, ports, cfg.barrier_prio, fmt::SwCounter::kPauseTx)
                   : 0);
        smp.ecn_marks = series.delta(2, drv.counter(rx_port, cfg.prio, fmt::SwCounter::kEcnMark));
        smp.cnps = series.delta(
            3, nics[rx_port]->eng.data_path()->counter(model::DataPath::Counter::kCnpTx));
        smp.barriers_done = series.delta(4, barrier_run ? barrier_run->done().size() : 0);
        for (unsigned s = 0; s < cfg.senders; ++s) {
          smp.flow_rate.push_back(static_cast<double>(nics[s]->eng.data_path()->flow(0).rc) /
                                  fmt::kRateLine);
        }
        r.series.push_back(std::move(smp));
      }
    }
  }
  if (barrier_run) {
    r.barriers = barrier_run->done();
    r.barriers_posted = barrier_run->posted();
    r.barriers_failed = barrier_run->failed();
  }

  const auto window = static_cast<double>(cfg.cycles - cfg.warmup);
  for (unsigned p = 0; p < ports; ++p) {
    r.pause_frames += drv.counter(p, cfg.prio, fmt::SwCounter::kPauseTx);
    for (const auto k :
         {fmt::SwCounter::kDropWred, fmt::SwCounter::kDropNoRoute, fmt::SwCounter::kDropBadPkt,
          fmt::SwCounter::kDropDisabled, fmt::SwCounter::kDropWd, fmt::SwCounter::kDropBuf}) {
      r.lossless_drops += drv.counter(p, cfg.prio, k);
    }
  }
  r.ecn_marks = drv.counter(rx_port, cfg.prio, fmt::SwCounter::kEcnMark);
  r.throughput = static_cast<double>(window_total) / window;
  for (auto f : window_flits) {
    r.share.push_back(static_cast<double>(f) / window);
  }
  r.jain = jain(r.share);
  const auto samples = cfg.cycles - cfg.warmup;
  std::uint64_t seen = 0;
  double sum = 0;
  bool p99_set = false;
  for (std::uint32_t q = 0; q < qhist.size(); ++q) {
    if (qhist[q] == 0) {
      continue;
    }
    seen += qhist[q];
    sum += static_cast<double>(q) * static_cast<double>(qhist[q]);
    r.qlen_max = q;
    // The smallest length that at least 99% of the samples do not exceed.
    if (!p99_set && seen * 100 >= samples * 99) {
      r.qlen_p99 = q;
      p99_set = true;
    }
  }
  r.qlen_mean = sum / static_cast<double>(samples);
  const model::DataPath& rx = *nics[rx_port]->eng.data_path();
  r.cnps = rx.counter(model::DataPath::Counter::kCnpTx);
  r.delivered_packets = rx.counter(model::DataPath::Counter::kDataRx);
  r.delivered_flits = rx.counter(model::DataPath::Counter::kDataRxFlits);
  r.rx_link_flits = nics[rx_port]->eng.link_backlog();
  if (own_barrier_prio) {
    r.barrier_pause_frames = switch_total(drv, ports, cfg.barrier_prio, fmt::SwCounter::kPauseTx);
  }
  return r;
}

std::string to_string(const IncastResult& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "pause_frames=%llu lossless_drops=%llu throughput=%.3f jain=%.3f cnps=%llu "
                "ecn_marks=%llu delivered=%llu",
                static_cast<unsigned long long>(r.pause_frames),
                static_cast<unsigned long long>(r.lossless_drops), r.throughput, r.jain,
                static_cast<unsigned long long>(r.cnps),
                static_cast<unsigned long long>(r.ecn_marks),
                static_cast<unsigned long long>(r.delivered_packets));
  std::string out = buf;
  std::snprintf(buf, sizeof buf,
                " qlen_p99=%u qlen_max=%u qlen_mean=%.1f ecn_level=%u..%u shift<=%u", r.qlen_p99,
                r.qlen_max, r.qlen_mean, r.ecn_level_min, r.ecn_level_max, r.ecn_shift_max);
  out += buf;
  out += " share=";
  for (std::size_t i = 0; i < r.share.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.3f", i == 0 ? "" : ",", r.share[i]);
    out += buf;
  }
  return out;
}

}  // namespace syncfab::sim::dcqcn
