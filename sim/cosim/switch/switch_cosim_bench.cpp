// The two runs of the switch co-simulation (switch_cosim_bench.hpp).
#include "switch_cosim_bench.hpp"

#include <Vswitch_top___024root.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <optional>
#include <random>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/fmt/formats.hpp"
#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/model/switch_model_config.hpp"

namespace syncfab::tb::switch_cosim {

namespace drv = syncfab::driver;

// The verilated ports carry each port's flit as FLIT_BITS / 32 words.
constexpr std::size_t kFlitWords = model::kFlitBytes / 4;

Flit flit_of_words(const std::uint32_t* w) {
  Flit f{};
  for (std::size_t i = 0; i < f.size(); ++i) {
    f[i] = static_cast<std::uint8_t>(w[i / 4] >> (8 * (i % 4)));
  }
  return f;
}

void words_of_flit(const Flit& f, std::uint32_t* w) {
  for (std::size_t k = 0; k < kFlitWords; ++k) {
    w[k] = 0;
  }
  for (std::size_t i = 0; i < f.size(); ++i) {
    w[i / 4] |= static_cast<std::uint32_t>(f[i]) << (8 * (i % 4));
  }
}

namespace {

// Bits [lsb, lsb + width) of a verilated packed vector: an integer up to 64
// bits, or a VlWide of 32-bit words above that.
template <typename T>
std::uint64_t bits_of(const T& v, unsigned lsb, unsigned width) {
  const std::uint64_t mask = (width >= 64) ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  if constexpr (std::is_integral_v<T>) {
    return (static_cast<std::uint64_t>(v) >> lsb) & mask;
  } else {
    std::uint64_t r = 0;
    for (unsigned b = 0; b < width; ++b) {
      const unsigned k = lsb + b;
      r |= static_cast<std::uint64_t>((v[k / 32] >> (k % 32)) & 1U) << b;
    }
    return r;
  }
}

// Widths of switch_top's per-output probe vectors: prio_t and qlen_t (the
// WRED_K fields).
constexpr unsigned kQBits = fmt::PktHdr::kPrioWidth;
constexpr unsigned kQlenBits = 16;

}  // namespace

void probe_enqueue(const Vswitch_top& dut, std::uint64_t cycle, std::vector<EnqEvent>& out) {
  const Vswitch_top___024root& r = *dut.rootp;
  static_assert(sizeof(r.switch_top__DOT__eng_q) * 8 >= std::size_t{kPorts} * kQBits);
  static_assert(sizeof(r.switch_top__DOT__qlen) * 8 >= std::size_t{kPorts} * kQlenBits);
  if (r.switch_top__DOT__eng_active == 0) {
    return;
  }
  const unsigned mask = r.switch_top__DOT__eng_mask;
  for (unsigned o = 0; o < kPorts; ++o) {
    if (((mask >> o) & 1U) == 0) {
      continue;
    }
    EnqEvent e;
    e.cycle = cycle;
    e.in = r.switch_top__DOT__eng_in;
    e.out = o;
    e.q = static_cast<unsigned>(bits_of(r.switch_top__DOT__eng_q, o * kQBits, kQBits));
    e.qlen = static_cast<std::uint32_t>(bits_of(r.switch_top__DOT__qlen, o * kQlenBits, kQlenBits));
    e.kmin = static_cast<std::uint32_t>(
        bits_of(r.switch_top__DOT__ke_min, (o * fmt::kNumPrio + e.q) * kQlenBits, kQlenBits));
    e.mark = ((r.switch_top__DOT__wred_mark >> o) & 1U) != 0;
    e.drop = ((r.switch_top__DOT__wred_drop >> o) & 1U) != 0;
    out.push_back(e);
  }
}

// ecn_dyn's per-queue signals are members of their generate scope: one
// name per (output, queue), listed for the four outputs of this build.
static_assert(kPorts == 4 && fmt::kNumPrio == 8, "probe_ecn lists the 4 x 8 queues by name");
static_assert(kPorts <= 8, "EcnSample::enq holds one bit per input in 8 bits");
// NOLINTBEGIN(cppcoreguidelines-macro-usage)
#define SF_ECN_Q(o, q, sig) \
  r.switch_top__DOT__u_ecn_dyn__DOT__gen_out__BRA__##o##__KET____DOT__gen_q__BRA__##q##__KET____DOT__##sig
#define SF_ECN_OUT(o, sig)                                                            \
  SF_ECN_Q(o, 0, sig), SF_ECN_Q(o, 1, sig), SF_ECN_Q(o, 2, sig), SF_ECN_Q(o, 3, sig), \
      SF_ECN_Q(o, 4, sig), SF_ECN_Q(o, 5, sig), SF_ECN_Q(o, 6, sig), SF_ECN_Q(o, 7, sig)

EcnSample probe_ecn(const Vswitch_top& dut) {
  const Vswitch_top___024root& r = *dut.rootp;
  const std::array<unsigned, std::size_t{kPorts} * fmt::kNumPrio> paused{
      SF_ECN_OUT(0, paused), SF_ECN_OUT(1, paused), SF_ECN_OUT(2, paused), SF_ECN_OUT(3, paused)};
  EcnSample s;
  constexpr unsigned kPe = 8;
  constexpr unsigned kSh = 3;
  constexpr unsigned kAct = 8;
  for (unsigned o = 0; o < kPorts; ++o) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      const unsigned k = o * fmt::kNumPrio + q;
      s.qlen[o][q] = static_cast<std::uint16_t>(
          bits_of(r.switch_top__DOT__qlen_all, k * kQlenBits, kQlenBits));
      s.ke_min[o][q] =
          static_cast<std::uint16_t>(bits_of(r.switch_top__DOT__ke_min, k * kQlenBits, kQlenBits));
      s.ke_max[o][q] =
          static_cast<std::uint16_t>(bits_of(r.switch_top__DOT__ke_max, k * kQlenBits, kQlenBits));
      s.pe[o][q] = static_cast<std::uint8_t>(bits_of(r.switch_top__DOT__pe, k * kPe, kPe));
      s.sh[o][q] = static_cast<std::uint8_t>(bits_of(r.switch_top__DOT__ecn_sh, k * kSh, kSh));
      s.act[o][q] =
          static_cast<std::uint8_t>(bits_of(r.switch_top__DOT__ecn_active, k * kAct, kAct));
      s.paused[o] = static_cast<std::uint8_t>(s.paused[o] | (paused[k] & 1U) << q);
    }
    // switch_top's ecn_enq: the engine's copy for o reaches WRED for its queue.
    if (r.switch_top__DOT__eng_active != 0 && ((r.switch_top__DOT__eng_mask >> o) & 1U) != 0) {
      const auto q = static_cast<unsigned>(bits_of(r.switch_top__DOT__eng_q, o * kQBits, kQBits));
      s.enq[o][q] = static_cast<std::uint8_t>(1U << r.switch_top__DOT__eng_in);
    }
  }
  s.win_cnt = r.switch_top__DOT__u_ecn_dyn__DOT__win_cnt_q;
  return s;
}
#undef SF_ECN_OUT
#undef SF_ECN_Q
// NOLINTEND(cppcoreguidelines-macro-usage)

namespace {

// Value of `key=` in a trace line (the model's `cyc=<n> NAME k=v ...`).
std::uint64_t field(std::string_view l, std::string_view key) {
  const std::string k = std::string(key) + "=";
  std::size_t at = 0;
  if (l.substr(0, k.size()) != k) {
    at = l.find(" " + k);
    if (at == std::string_view::npos) {
      throw std::runtime_error("model trace line without " + k + ": " + std::string(l));
    }
    ++at;
  }
  std::uint64_t v = 0;
  for (at += k.size(); at < l.size() && l[at] >= '0' && l[at] <= '9'; ++at) {
    v = v * 10 + static_cast<std::uint64_t>(l[at] - '0');
  }
  return v;
}

}  // namespace

void ModelEnqLog::line(std::string_view l) {
  const std::size_t sp = l.find(' ');
  if (sp == std::string_view::npos) {
    return;
  }
  const std::string_view rest = l.substr(sp + 1);
  const auto is = [&rest](std::string_view name) {
    return rest.substr(0, name.size() + 1) == std::string(name) + " ";
  };
  if (is("PAUSE_RX")) {
    pauses.push_back(Pause{field(l, "cyc"), static_cast<unsigned>(field(l, "port")),
                           static_cast<unsigned>(field(l, "prio"))});
    return;
  }
  const bool mark = is("ECN_MARK");
  const bool drop = is("DROP_WRED");
  const bool enq = is("ENQ");
  if (!mark && !drop && !enq) {
    return;
  }
  EnqEvent e;
  e.cycle = field(l, "cyc");
  e.in = static_cast<unsigned>(field(l, "in"));
  e.out = static_cast<unsigned>(field(l, "out"));
  e.q = static_cast<unsigned>(field(l, "q"));
  if (mark) {
    e.qlen = static_cast<std::uint32_t>(field(l, "qlen"));
    e.kmin = static_cast<std::uint32_t>(field(l, "kmin"));
    e.mark = true;
    pending_ = e;
    return;
  }
  if (drop) {
    e.qlen = static_cast<std::uint32_t>(field(l, "qlen"));
    e.kmin = static_cast<std::uint32_t>(field(l, "kmin"));
    e.drop = true;
    events.push_back(e);
    return;
  }
  // ENQ shows the length after the copy was added.
  e.qlen = static_cast<std::uint32_t>(field(l, "qlen") - field(l, "len"));
  if (pending_ && pending_->out == e.out && pending_->q == e.q && pending_->in == e.in) {
    e.mark = true;
    e.kmin = pending_->kmin;
  }
  pending_.reset();
  events.push_back(e);
}

void program(drv::Switch& sw, const Setup& s) {
  sw.program_port_groups(s.groups);
  sw.program_lft(s.lft);
  sw.set_port_up(s.port_up);
  for (const auto& [mlid, mask] : s.mft) {
    sw.set_mft(mlid, mask);
  }
  sw.set_pfc_timing(s.timing);
  for (unsigned p = 0; p < kPorts; ++p) {
    sw.configure_pfc(p, s.pfc[p], s.link);
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      if (s.wred[p][q].enable) {
        sw.configure_wred(p, q, s.wred[p][q]);
      }
    }
    sw.configure_scheduler(p, s.sched[p]);
  }
  sw.configure_remap(s.remap);
  if (s.wd) {
    sw.configure_watchdog(*s.wd);
    for (unsigned p = 0; p < kPorts; ++p) {
      sw.configure_watchdog_port(p, s.wd_port[p]);
    }
  }
  sw.enable(true);
}

namespace {

// One input's source: a queue per priority, frames first, pauses honoured.
struct Source {
  std::array<std::deque<std::size_t>, fmt::kNumPrio> data;
  std::deque<std::size_t> frames;
  std::array<std::uint64_t, fmt::kNumPrio> paused_until{};
  // Pause frames the switch sent us: (cycle they take effect, class, quanta).
  struct Effect {
    std::uint64_t at = 0;
    std::uint8_t cls = 0;
    std::array<std::uint16_t, fmt::kNumPrio> quanta{};
  };
  std::deque<Effect> effects;
  std::optional<std::size_t> cur;
  std::size_t pos = 0;
  std::vector<std::uint64_t> cycles;
};

bool near_enable_edge(const Stimulus& st, std::uint64_t now) {
  const auto near = [now](std::uint64_t edge) {
    return now + kEnableQuiet >= edge && now <= edge + kEnableQuiet;
  };
  return std::any_of(st.disabled.begin(), st.disabled.end(),
                     [&near](const auto& w) { return near(w.first) || near(w.second); }) ||
         std::any_of(st.port_up.begin(), st.port_up.end(),
                     [&near](const auto& w) { return near(w.first); });
}

// One CTRL.ENABLE write; records the first cycle the RTL sees it.
Task<> write_enable(ApbMaster* apb, bool on, const std::uint64_t* now, RunLog* log) {
  co_await apb->write(hw::switch_regs::CTRL.offset, on ? 1U : 0U);
  log->enable_writes.emplace_back(*now + 1, on);
}

// One PORT_UP write; records the first cycle the RTL sees it.
Task<> write_port_up(ApbMaster* apb, std::uint32_t up, const std::uint64_t* now, RunLog* log) {
  co_await apb->write(hw::switch_regs::PORT_UP.offset, up);
  log->port_up_writes.emplace_back(*now + 1, up);
}

// The register accesses of Stimulus::csr, one after the other, each at or
// after its cycle; `done` once the last one completed.
Task<> run_csr(ApbMaster* apb, Clock* clk, const std::vector<CsrOp>* ops, const std::uint64_t* now,
               RunLog* log, bool* done) {
  for (std::size_t k = 0; k < ops->size(); ++k) {
    const CsrOp& op = (*ops)[k];
    while (*now < op.cycle) {
      co_await RisingEdge(*clk);
    }
    if (op.read) {
      const ApbResult a = co_await apb->read(op.offset);
      log->csr.push_back(CsrDone{k, *now, a.data, a.error});
    } else {
      const ApbResult a = co_await apb->write(op.offset, op.value);
      log->csr.push_back(CsrDone{k, *now + 1, 0, a.error});
    }
  }
  *done = true;
}

std::optional<std::size_t> pick(Source& s, const Stimulus& st, std::uint64_t now) {
  if (near_enable_edge(st, now)) {
    return std::nullopt;
  }
  if (!s.frames.empty() && st.pkts[s.frames.front()].not_before <= now) {
    const std::size_t k = s.frames.front();
    s.frames.pop_front();
    return k;
  }
  std::optional<unsigned> best;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    if (s.data[p].empty() || s.paused_until[p] > now) {
      continue;
    }
    const std::size_t k = s.data[p].front();
    if (st.pkts[k].not_before > now) {
      continue;
    }
    if (!best || k < s.data[*best].front()) {
      best = p;
    }
  }
  if (!best) {
    return std::nullopt;
  }
  const std::size_t k = s.data[*best].front();
  s.data[*best].pop_front();
  return k;
}

}  // namespace

Task<> reset_switch(Vswitch_top& dut, ApbMaster& apb, Clock& clk) {
  apb.idle();
  dut.rst_ni = 0;
  dut.pprot_i = 0;
  dut.rx_valid_i = 0;
  dut.rx_last_i = 0;
  dut.tx_ready_i = (1U << kPorts) - 1;
  co_await ClockCycles(clk, 3);
  dut.rst_ni = 1;
  co_await RisingEdge(clk);
}

Task<RunLog> run_rtl(TestContext& ctx, const Setup& setup, const Stimulus& stim) {
  auto& dut = ctx.make_dut<Vswitch_top>();
  Clock& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  ApbMaster apb(clk, apb_pins_of(dut, kCsrWindow));
  hw::HostMemory memory(0x8000'0000, 4096);
  drv::RtlDevice dev(
      ctx.sim(), clk, apb, [&dut] { return dut.intr_o != 0; }, memory, kCsrWindow);

  co_await reset_switch(dut, apb, clk);
  drv::Switch sw(dev);
  program(sw, setup);

  RunLog log;
  std::array<Source, kPorts> src;
  for (std::size_t k = 0; k < stim.pkts.size(); ++k) {
    const StimPacket& p = stim.pkts[k];
    if (p.pfc) {
      src.at(p.in).frames.push_back(k);
    } else {
      src.at(p.in).data.at(p.prio).push_back(k);
    }
  }
  // Frames added after the random ones (a pause storm) go in time order.
  for (Source& s : src) {
    std::stable_sort(s.frames.begin(), s.frames.end(), [&stim](std::size_t a, std::size_t b) {
      return stim.pkts[a].not_before < stim.pkts[b].not_before;
    });
  }
  std::uint64_t windows_end = 0;
  for (const auto& w : stim.disabled) {
    windows_end = std::max(windows_end, w.second + kEnableQuiet);
  }
  for (const auto& w : stim.port_up) {
    windows_end = std::max(windows_end, w.first + kEnableQuiet);
  }
  std::array<TxEntry, kPorts> cur_tx{};
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto& rng = ctx.rng();
  const std::uint64_t delay = setup.link.delay_cycles;
  const auto wall0 = std::chrono::steady_clock::now();
  std::uint64_t now = 0;
  std::uint64_t last_activity = 0;
  std::size_t done_pkts = 0;
  constexpr std::uint64_t kQuiet = 400;
  const std::uint64_t limit = 2'000'000;
  auto* rx_words = reinterpret_cast<std::uint32_t*>(&dut.rx_data_i);
  const auto* tx_words = reinterpret_cast<const std::uint32_t*>(&dut.tx_data_o);
  bool csr_done = stim.csr.empty();
  if (!stim.csr.empty()) {
    ctx.sim().start_soon(run_csr(&apb, &clk, &stim.csr, &now, &log, &csr_done));
  }
  for (;; ++now) {
    if (done_pkts == stim.pkts.size() && now > last_activity + kQuiet && now > windows_end &&
        csr_done) {
      break;
    }
    for (const auto& w : stim.disabled) {
      if (now == w.first || now == w.second) {
        ctx.sim().start_soon(write_enable(&apb, now == w.second, &now, &log));
      }
    }
    for (const auto& w : stim.port_up) {
      if (now == w.first) {
        ctx.sim().start_soon(write_port_up(&apb, w.second, &now, &log));
      }
    }
    if (now > limit) {
      throw std::runtime_error("switch co-sim: traffic did not drain");
    }
    std::uint32_t valid = 0;
    std::uint32_t last = 0;
    std::uint32_t ready = 0;
    for (unsigned p = 0; p < kPorts; ++p) {
      Source& s = src[p];
      while (!s.effects.empty() && s.effects.front().at <= now) {
        const Source::Effect e = s.effects.front();
        s.effects.pop_front();
        for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
          if ((e.cls >> q & 1U) == 0) {
            continue;
          }
          s.paused_until[q] =
              e.quanta[q] == 0 ? 0
                               : e.at + std::uint64_t{e.quanta[q]} * setup.timing.cyc_per_quantum;
        }
      }
      if (!s.cur) {
        s.cur = pick(s, stim, now);
        s.pos = 0;
        s.cycles.clear();
      }
      const bool gap = s.pos > 0 && stim.rx_gap > 0.0 && u(rng) < stim.rx_gap;
      if (s.cur && !gap) {
        const auto& fl = stim.pkts[*s.cur].flits;
        valid |= 1U << p;
        if (s.pos + 1 == fl.size()) {
          last |= 1U << p;
        }
        words_of_flit(fl[s.pos], rx_words + kFlitWords * p);
      }
      const bool stall = stim.tx_stall > 0.0 && u(rng) < stim.tx_stall;
      if (!stall) {
        ready |= 1U << p;
      }
    }
    dut.rx_valid_i = valid;
    dut.rx_last_i = last;
    dut.tx_ready_i = ready;
    log.ready.push_back(static_cast<std::uint8_t>(ready));
    co_await ReadOnly();
    probe_enqueue(dut, now, log.enq);
    if (stim.probe_ecn) {
      log.ecn.push_back(probe_ecn(dut));
    }
    std::array<bool, kPorts> took{};
    for (unsigned p = 0; p < kPorts; ++p) {
      took[p] = ((valid >> p) & 1U) != 0 && ((dut.rx_ready_o >> p) & 1U) != 0;
      if (((dut.tx_valid_o >> p) & 1U) != 0 && ((ready >> p) & 1U) != 0) {
        last_activity = now;
        TxEntry& t = cur_tx[p];
        if (t.flits.empty()) {
          t.first = now;
        }
        t.flits.push_back(flit_of_words(tx_words + kFlitWords * p));
        if (((dut.tx_last_o >> p) & 1U) != 0) {
          t.last = now;
          if (fmt::PktHdr(t.flits[0]).pkt_type() == fmt::PktType::kPfc) {
            // The peer of port p sees the frame `delay` cycles later, stops
            // at the next edge, and its flits still on the wire take
            // `delay` more: the same as stopping 2 * delay + 1 after it here.
            Source::Effect e;
            e.at = now + 2 * delay + 1;
            if (t.flits.size() == model::kPfcFrameFlits) {
              fmt::PfcFrame::Bytes img{};
              std::copy_n(t.flits[0].begin(), model::kFlitBytes, img.begin());
              std::copy_n(t.flits[1].begin(), model::kFlitBytes, img.begin() + model::kFlitBytes);
              const fmt::PfcFrame f(img);
              e.cls = f.class_enable();
              for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
                e.quanta[q] = f.quanta(q);
              }
              src[p].effects.push_back(e);
            }
            log.frames[p].push_back(std::move(t));
          } else {
            log.data[p].push_back(std::move(t));
          }
          t = TxEntry{};
        }
      }
    }
    co_await RisingEdge(clk);
    for (unsigned p = 0; p < kPorts; ++p) {
      if (!took[p]) {
        continue;
      }
      Source& s = src[p];
      last_activity = now;
      s.cycles.push_back(now);
      if (++s.pos == stim.pkts[*s.cur].flits.size()) {
        log.rx[p].push_back(RxEntry{*s.cur, s.cycles});
        s.cur.reset();
        ++done_pkts;
      }
    }
  }
  log.cycles = now;
  log.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  dut.rx_valid_i = 0;
  dut.tx_ready_i = (1U << kPorts) - 1;
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
        log.counters[p][q][k] = sw.counter(p, q, static_cast<fmt::SwCounter>(k));
      }
    }
  }
  log.group_skips = sw.group_skips();
  co_return log;
}

RunLog run_model(const Setup& setup, const Stimulus& stim, const RunLog& rtl,
                 const ModelTiming& timing, bool trace_enq) {
  const auto wall0 = std::chrono::steady_clock::now();
  model::SwitchModelParams mp;
  mp.csr = model::SwitchCsrParams{kPorts, kBufCells, kLftEntries, kMftEntries};
  // The RTL's timing as far as the replay allows (ModelTiming;
  // docs/switch-datapath.md, "RTL and model timing in the co-simulation").
  mp.fwd_latency = timing.fwd_latency;
  mp.egress_gap = timing.egress_gap;
  mp.starts_per_cycle = timing.starts_per_cycle;
  mp.enqueue_per_cycle = timing.enqueue_per_cycle;
  mp.enqueue_by_packet = true;
  mp.shared_wred = true;
  // A one-flit packet's copies leave together (datapath "Egress", shared read).
  mp.shared_read = true;
  model::SwitchModel m(mp);
  ModelEnqLog enq;
  if (trace_enq) {
    m.set_trace([&enq](std::string_view l) { enq.line(l); });
  }
  drv::Switch sw(m.csr());
  program(sw, setup);
  std::vector<std::size_t> stim_of;  // model id -> stimulus index
  for (unsigned p = 0; p < kPorts; ++p) {
    for (const RxEntry& r : rtl.rx[p]) {
      const std::uint64_t id = m.receive_timed(p, stim.pkts[r.pkt].flits, r.cycles);
      if (stim_of.size() <= id) {
        stim_of.resize(id + 1);
      }
      stim_of[id] = r.pkt;
    }
  }
  const std::vector<std::uint8_t>& ready = rtl.ready;
  m.set_tx_ready([&ready](unsigned port, std::uint64_t cycle) {
    return cycle >= ready.size() || ((ready[cycle] >> port) & 1U) != 0;
  });
  RunLog log;
  // n ticks; with Stimulus::probe_ecn the law's state before each (the
  // inputs from the trace once the run is over).
  const auto advance = [&](std::uint64_t n) {
    if (!stim.probe_ecn) {
      m.run(n);
      return;
    }
    for (std::uint64_t k = 0; k < n; ++k) {
      const model::SwitchConfig cfg = model::read_switch_config(m.csr(), kPorts);
      const model::EcnDynConfig dyn = model::read_ecn_dyn_config(m.csr());
      EcnSample s;
      for (unsigned o = 0; o < kPorts; ++o) {
        for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
          const model::EcnController& c = m.ecn_controller(o, q);
          const model::WredConfig e = c.effective(dyn.on(q), cfg.port[o].wred[q]);
          s.qlen[o][q] =
              static_cast<std::uint16_t>(std::min<std::uint32_t>(m.queue_cells(o, q), 0xFFFFU));
          s.ke_min[o][q] = static_cast<std::uint16_t>(e.kmin);
          s.ke_max[o][q] = static_cast<std::uint16_t>(e.kmax);
          s.pe[o][q] = static_cast<std::uint8_t>(e.pmax);
          s.sh[o][q] = static_cast<std::uint8_t>(dyn.on(q) ? c.shift() : 0U);
          s.act[o][q] = static_cast<std::uint8_t>(dyn.on(q) ? c.active_last() : 0U);
        }
      }
      log.ecn.push_back(s);
      m.run(1);
    }
  };
  // As long as the RTL ran, with its CTRL.ENABLE writes, then until idle.
  // The RTL's CSR accesses in cycle order: CTRL.ENABLE (1), PORT_UP (2)
  // and Stimulus::csr (3, value = its index in RunLog::csr).
  std::vector<std::tuple<std::uint64_t, int, std::uint32_t>> writes;
  for (const auto& [cycle, on] : rtl.enable_writes) {
    writes.emplace_back(cycle, 1, on ? 1U : 0U);
  }
  for (const auto& [cycle, up] : rtl.port_up_writes) {
    writes.emplace_back(cycle, 2, up);
  }
  for (std::size_t k = 0; k < rtl.csr.size(); ++k) {
    writes.emplace_back(rtl.csr[k].at, 3, static_cast<std::uint32_t>(k));
  }
  std::stable_sort(writes.begin(), writes.end(),
                   [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
  for (const auto& [cycle, kind, value] : writes) {
    if (cycle > m.cycle()) {
      advance(cycle - m.cycle());
    }
    if (kind == 1) {
      sw.enable(value != 0);
    } else if (kind == 2) {
      sw.set_port_up(value);
    } else {
      const CsrDone& r = rtl.csr[value];
      const CsrOp& op = stim.csr.at(r.op);
      CsrDone d{r.op, m.cycle(), 0, false};
      try {
        if (op.read) {
          d.data = m.csr().read32(op.offset);
        } else {
          m.csr().write32(op.offset, op.value);
        }
      } catch (const hw::BusError&) {
        d.error = true;
      }
      log.csr.push_back(d);
    }
  }
  if (rtl.cycles > m.cycle()) {
    advance(rtl.cycles - m.cycle());
  }
  m.run_until_idle(1'000'000);
  log.cycles = m.cycle();
  if (!m.idle()) {
    log.violations.emplace_back("model did not drain");
  }
  for (unsigned o = 0; o < kPorts; ++o) {
    for (const model::TxPacket& t : m.transmitted(o)) {
      log.data[o].push_back(TxEntry{t.flits, t.first_cycle, t.last_cycle});
    }
    for (const model::TxPfcFrame& f : m.pfc_sent(o)) {
      log.frames[o].push_back(TxEntry{{f.flits[0], f.flits[1]}, f.first_cycle, f.first_cycle + 1});
    }
  }
  for (model::DropRecord d : m.drops()) {
    d.pkt_id = stim_of.at(d.pkt_id);
    log.drops.push_back(d);
  }
  log.violations.insert(log.violations.end(), m.violations().begin(), m.violations().end());
  log.enq = std::move(enq.events);
  for (const EnqEvent& e : log.enq) {
    if (e.cycle < log.ecn.size()) {
      auto& b = log.ecn[e.cycle].enq[e.out][e.q];
      b = static_cast<std::uint8_t>(b | 1U << e.in);
    }
  }
  for (const ModelEnqLog::Pause& p : enq.pauses) {
    if (p.cycle < log.ecn.size()) {
      auto& b = log.ecn[p.cycle].paused[p.port];
      b = static_cast<std::uint8_t>(b | 1U << p.prio);
    }
  }
  log.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  for (unsigned p = 0; p < kPorts; ++p) {
    for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
      for (unsigned k = 0; k < fmt::kSwCounterCount; ++k) {
        log.counters[p][q][k] = sw.counter(p, q, static_cast<fmt::SwCounter>(k));
      }
    }
  }
  log.group_skips = sw.group_skips();
  return log;
}

}  // namespace syncfab::tb::switch_cosim
