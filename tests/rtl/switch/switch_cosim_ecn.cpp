// The dynamic ECN law against the golden controllers (switch_cosim_ecn.hpp).
#include "switch_cosim_ecn.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <tuple>

#include "syncfab/hw/errors.hpp"
#include "syncfab/model/ecn_controller.hpp"
#include "syncfab/model/switch_csr_model.hpp"
#include "syncfab/model/switch_model_config.hpp"
#include "syncfab/model/wred_ecn.hpp"

namespace syncfab::tb::switch_cosim {

namespace {

using model::EcnController;

std::string qname(std::uint64_t t, unsigned o, unsigned q) {
  return "cycle " + std::to_string(t) + ", output " + std::to_string(o) + " queue " +
         std::to_string(q) + ": ";
}

EcnLawSeen replay_law(const char* run, const Setup& setup, const Stimulus& stim, const RunLog& rtl,
                      bool is_rtl);

}  // namespace

namespace {

// One run (`rtl`: the RTL's, else the model's) against the golden law
// and WRED on that run's own measured inputs.
EcnLawSeen replay_law(const char* run, const Setup& setup, const Stimulus& stim, const RunLog& rtl,
                      bool is_rtl) {
  EcnLawSeen seen;
  TB_CHECK(!rtl.ecn.empty()) << run << " run: no dynamic-ECN samples (Stimulus::probe_ecn)";
  TB_CHECK_EQ(rtl.csr.size(), stim.csr.size()) << run << " run: register accesses made";
  model::SwitchCsrModel csr(model::SwitchCsrParams{kPorts, kBufCells, kLftEntries, kMftEntries});
  {
    driver::Switch sw(csr);
    program(sw, setup);
  }
  std::array<std::array<EcnController, fmt::kNumPrio>, kPorts> ctl{};
  model::SwitchConfig cfg = model::read_switch_config(csr, kPorts);
  model::EcnDynConfig dyn = model::read_ecn_dyn_config(csr);
  csr.hw_set_ecn_status([&](unsigned p, unsigned q, bool state) {
    const model::WredConfig& stat = cfg.port.at(p).wred.at(q);
    return state ? ctl.at(p).at(q).status_state(dyn.on(q), stat)
                 : ctl.at(p).at(q).status_k(dyn.on(q), stat);
  });
  // Programming ran with the law off, so the counter rests at 1 (§2).
  std::uint32_t win_cnt = 1;
  constexpr std::uint32_t kCntMask = (std::uint32_t{1} << model::EcnDynConfig::kCounterBits) - 1;
  std::size_t next = 0;
  // The switch's one WRED LFSR, stepped once per copy in the RTL's order
  // (model::WredEcn's sequence from the same seed); per (input, output,
  // queue) the RTL's decisions that kept the copy, in order, with what the
  // golden WRED needs to decide them once the copy's ECN is known.
  model::WredEcn wred;
  struct Kept {
    std::uint64_t cycle = 0;
    bool mark = false;  // the RTL's decision
    bool hit = false;   // golden: selected by the WRED line
  };
  std::map<std::tuple<unsigned, unsigned, unsigned>, std::deque<Kept>> kept;
  std::size_t enq_at = 0;
  for (std::uint64_t t = 0; t < rtl.ecn.size(); ++t) {
    const EcnSample& s = rtl.ecn[t];
    // The accesses that take effect in (writes) or read (reads) cycle t.
    while (next < rtl.csr.size() && rtl.csr[next].at <= t) {
      const CsrDone& r = rtl.csr[next];
      const CsrOp& op = stim.csr.at(r.op);
      TB_CHECK_EQ(r.at, t) << run << " run: access " << next;
      cfg = model::read_switch_config(csr, kPorts);
      dyn = model::read_ecn_dyn_config(csr);
      bool error = false;
      std::uint32_t data = 0;
      try {
        if (op.read) {
          data = csr.read32(op.offset);
        } else {
          csr.write32(op.offset, op.value);
        }
      } catch (const hw::BusError&) {
        error = true;
      }
      TB_CHECK_EQ(r.error, error) << run << " run, cycle " << t << ", access " << next << " at 0x"
                                  << std::hex << op.offset << " value 0x" << op.value << std::dec
                                  << ": bus error (PSLVERR) vs golden";
      seen.refused += (!op.read && error) ? 1U : 0U;
      if (op.read) {
        TB_CHECK_EQ(r.data, data) << run << " run, cycle " << t << ", read " << next << " at 0x"
                                  << std::hex << op.offset << std::dec << ": vs golden law";
        ++seen.reads;
      }
      ++next;
    }
    cfg = model::read_switch_config(csr, kPorts);
    dyn = model::read_ecn_dyn_config(csr);
    if (is_rtl) {
      TB_CHECK_EQ(s.win_cnt, win_cnt) << "cycle " << t << ": win_cnt";
    }
    // This cycle's WRED decisions, with the thresholds of this cycle.
    for (; enq_at < rtl.enq.size() && rtl.enq[enq_at].cycle == t; ++enq_at) {
      const EnqEvent& ev = rtl.enq[enq_at];
      const model::WredConfig eff =
          ctl[ev.out][ev.q].effective(dyn.on(ev.q), cfg.port[ev.out].wred[ev.q]);
      // The model's trace names the Kmin of marks and drops only.
      TB_CHECK(!(is_rtl || ev.mark || ev.drop) || ev.kmin == eff.kmin)
          << "Kmin " << ev.kmin << " != " << eff.kmin << ": " << run << " run, "
          << qname(t, ev.out, ev.q) << "Kmin WRED used";
      const bool hit = wred.selected(wred.lfsr_state(), ev.qlen, eff);
      wred.clock(true);
      ++seen.decisions;
      if (ev.drop) {
        TB_CHECK(hit && !setup.lossless(ev.out, ev.q))
            << run << " run, " << qname(t, ev.out, ev.q) << "RTL WRED drop at queue length "
            << ev.qlen << ", golden: " << (hit ? "lossless" : "not selected");
      } else {
        kept[{ev.in, ev.out, ev.q}].push_back(Kept{t, ev.mark, hit});
      }
      if (ev.mark && dyn.on(ev.q)) {
        ++seen.marks_on;
        seen.marks_shifted += s.sh[ev.out][ev.q] != 0 ? 1U : 0U;
      }
    }
    const bool last = EcnController::window_end(win_cnt, dyn.win);
    for (unsigned o = 0; o < kPorts; ++o) {
      for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
        EcnController& c = ctl[o][q];
        const model::WredConfig& stat = cfg.port[o].wred[q];
        const bool on = dyn.on(q);
        const model::WredConfig e = c.effective(on, stat);
        TB_CHECK_EQ(s.ke_min[o][q], e.kmin)
            << run << " run, " << qname(t, o, q) << "effective Kmin";
        TB_CHECK_EQ(s.ke_max[o][q], e.kmax)
            << run << " run, " << qname(t, o, q) << "effective Kmax";
        TB_CHECK_EQ(s.pe[o][q], e.pmax) << run << " run, " << qname(t, o, q) << "effective Pmax";
        TB_CHECK_EQ(s.sh[o][q], on ? c.shift() : 0U)
            << run << " run, " << qname(t, o, q) << "shift";
        TB_CHECK_EQ(s.act[o][q], on ? c.active_last() : 0U)
            << run << " run, " << qname(t, o, q) << "active";
        seen.values_compared += 5;
        const bool paused = (s.paused[o] >> q & 1U) != 0;
        if (on && last) {
          ++seen.window_ends;
        }
        const unsigned p0 = c.level();
        c.step(on, last, dyn, model::EcnCtrlInputs{s.qlen[o][q], s.enq[o][q], paused}, stat);
        if (on && last) {
          seen.raised += c.level() > p0 ? 1U : 0U;
          seen.lowered += c.level() < p0 ? 1U : 0U;
          seen.paused_holds += (paused && c.active_last() != 0 && c.level() == p0) ? 1U : 0U;
          seen.max_sh = std::max(seen.max_sh, c.shift());
        }
      }
    }
    win_cnt = dyn.enable == 0 ? 1U : (win_cnt + 1U) & kCntMask;
  }
  TB_CHECK_EQ(next, rtl.csr.size()) << "register accesses after the last sampled cycle";
  TB_CHECK_EQ(enq_at, rtl.enq.size()) << "WRED decisions after the last sampled cycle";
  // Every copy the RTL sent, in order per (input, output, queue), is the
  // next decision that kept one there: its ECN is the golden WRED's for
  // the ECN it arrived with.
  for (unsigned o = 0; o < kPorts; ++o) {
    for (const TxEntry& tx : rtl.data[o]) {
      const fmt::PktHdr h(tx.flits.at(0));
      const std::size_t k = h.flow_label();
      const StimPacket& sp = stim.pkts.at(k);
      const unsigned q = h.prio();
      auto& d = kept[{sp.in, o, q}];
      TB_CHECK(!d.empty()) << "packet " << k << " left output " << o << " q " << q
                           << " without a WRED decision";
      const Kept kd = d.front();
      d.pop_front();
      model::WredPacket wp;
      wp.ecn = fmt::PktHdr(sp.flits.at(0)).ecn();
      wp.lossless = setup.lossless(o, q);
      const bool mark = kd.hit && wp.ecn != fmt::Ecn::kNotEct;
      const fmt::Ecn ecn = mark ? fmt::Ecn::kCe : wp.ecn;
      TB_CHECK_EQ(kd.mark, mark) << "packet " << k << " output " << o << " q " << q
                                 << ", decided in cycle " << kd.cycle << ": RTL mark vs golden";
      TB_CHECK(!(kd.hit && wp.ecn == fmt::Ecn::kNotEct && !wp.lossless))
          << "packet " << k << " output " << o << " q " << q << ": golden WRED drops it, it left";
      TB_CHECK_EQ(static_cast<unsigned>(h.ecn()), static_cast<unsigned>(ecn))
          << "packet " << k << " output " << o << " q " << q << ", decided in cycle " << kd.cycle
          << ": ECN sent vs golden";
      ++seen.flits_ecn;
    }
  }
  for (const auto& [key, d] : kept) {
    TB_CHECK(d.empty()) << d.size() << " kept copies of (input " << std::get<0>(key) << ", output "
                        << std::get<1>(key) << ", q " << std::get<2>(key) << ") never left";
  }
  seen.cycles = rtl.ecn.size();
  return seen;
}

}  // namespace

EcnLawSeen check_ecn_law(const Setup& setup, const Stimulus& stim, const RunLog& rtl,
                         const RunLog& mdl) {
  EcnLawSeen seen = replay_law("RTL", setup, stim, rtl, true);
  const EcnLawSeen m = replay_law("model", setup, stim, mdl, false);
  seen.model = {m.window_ends, m.raised, m.lowered, m.reads, m.decisions, m.flits_ecn};
  // RTL against model directly: each law is the golden one on its own
  // measures, which differ where the two switches' timing does.
  for (std::size_t k = 0; k < rtl.csr.size(); ++k) {
    if (stim.csr.at(rtl.csr[k].op).read) {
      seen.reads_rtl_eq_model += rtl.csr[k].data == mdl.csr.at(k).data ? 1U : 0U;
    }
  }
  return seen;
}

}  // namespace syncfab::tb::switch_cosim
