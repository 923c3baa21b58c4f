#include "nic_top_bench.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "syncfab/hw/errors.hpp"
#include "syncfab/regs/nic_csr.h"

namespace syncfab::tb::nic_top {

using fmt::PktHdr;
using fmt::PktType;

Flit flit_of(const fmt::PktHdr& h) { return h.bytes(); }

fmt::PktHdr hdr_of(const Flit& f) { return PktHdr::decode(f); }

Packet pfc_packet(const fmt::PfcFrame& f) {
  Packet p(2);
  const auto& b = f.bytes();
  std::copy_n(b.begin(), kFlitBytes, p[0].begin());
  std::copy_n(b.begin() + kFlitBytes, kFlitBytes, p[1].begin());
  return p;
}

fmt::PfcFrame pfc_frame(std::uint8_t classes, std::uint16_t quanta) {
  fmt::PfcFrame f;
  f.set_pkt_type(PktType::kPfc).set_len_flits(2).set_class_enable(classes);
  for (std::size_t p = 0; p < fmt::kNumPrio; ++p) {
    if (((classes >> p) & 1U) != 0) {
      f.set_quanta(p, quanta);
    }
  }
  return f;
}

Flit read_flit(const VlWide<4>& w) {
  Flit f{};
  for (std::size_t i = 0; i < kFlitBytes; ++i) {
    f[i] = static_cast<std::uint8_t>(w[i / 4] >> (8 * (i % 4)));
  }
  return f;
}

void drive_flit(VlWide<4>& w, const Flit& f) {
  for (std::size_t i = 0; i < kFlitBytes / 4; ++i) {
    w[i] = static_cast<std::uint32_t>(f[4 * i]) | (static_cast<std::uint32_t>(f[4 * i + 1]) << 8U) |
           (static_cast<std::uint32_t>(f[4 * i + 2]) << 16U) |
           (static_cast<std::uint32_t>(f[4 * i + 3]) << 24U);
  }
}

fmt::PktHdr decode_hdr(const VlWide<4>& w) { return hdr_of(read_flit(w)); }

void drive_hdr(VlWide<4>& w, const fmt::PktHdr& h) { drive_flit(w, flit_of(h)); }

namespace {

std::uint64_t uniform(std::mt19937_64& rng, std::uint64_t lo, std::uint64_t hi) {
  return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
}
bool chance(std::mt19937_64& rng, double p) { return std::bernoulli_distribution(p)(rng); }

std::string key_text(unsigned ctx, std::uint16_t epoch, unsigned round, std::uint16_t lid) {
  std::ostringstream os;
  os << "ctx " << ctx << " epoch " << epoch << " round " << round << " peer 0x" << std::hex << lid;
  return os.str();
}

}  // namespace

// ------------------------------------------------------------------ memory
Task<> MemoryBfm::run() {
  if (clk_.sim().in_readonly()) {
    co_await RisingEdge(clk_);
  }
  std::uint64_t last_due = 0;
  for (;;) {
    dut_.mem_req_ready_i = !chance(rng_, knobs_.mem_stall);
    const bool rsp = !pend_.empty() && pend_.front().due <= clk_.cycles();
    dut_.mem_rsp_valid_i = rsp;
    dut_.mem_rsp_data_i = rsp ? pend_.front().data : 0;
    dut_.mem_rsp_err_i = rsp && pend_.front().err;
    co_await ReadOnly();
    const std::uint64_t now = clk_.cycles();
    if (rsp) {
      TB_CHECK(dut_.mem_rsp_ready_o) << "nic_top refused a memory response (rsp_ready low)";
      pend_.pop_front();
    }
    if (dut_.mem_req_valid_o && dut_.mem_req_ready_i) {
      const hw::BusAddr addr = dut_.mem_req_addr_o;
      Pending p;
      p.due = std::max(last_due, now + uniform(rng_, 1, std::max(1U, knobs_.mem_latency)));
      last_due = p.due;
      try {
        if (addr % 8 != 0) {
          throw hw::DmaError("unaligned");
        }
        if (dut_.mem_req_write_o) {
          mem_.write64(addr, dut_.mem_req_data_o);
          ++writes_;
          if (cq_entries_ != 0 && addr >= cq_base_ && addr < cq_base_ + 16ULL * cq_entries_ &&
              (addr - cq_base_) % 16 == 0) {
            const std::uint64_t w0 = dut_.mem_req_data_o;
            cq_.push_back(CqWrite{now, static_cast<unsigned>(w0 & 0xFFU),
                                  static_cast<std::uint16_t>((w0 >> 32U) & 0xFFFFU),
                                  static_cast<unsigned>((w0 >> 8U) & 0xFFU),
                                  static_cast<unsigned>((w0 >> 16U) & 0xFFU)});
          }
        } else {
          p.data = mem_.read64(addr);
          ++reads_;
        }
      } catch (const hw::DmaError&) {
        p.err = true;
      }
      pend_.push_back(p);
    }
    co_await RisingEdge(clk_);
  }
}

// ----------------------------------------------------------------- network
void PeerWorld::expect(unsigned ctx, std::uint16_t epoch, const driver::BarrierSchedule& sched,
                       const std::vector<std::uint16_t>& lids, unsigned skew, unsigned round_gap,
                       unsigned base) {
  BarrierExp e;
  e.ctx = ctx;
  e.epoch = epoch;
  const std::uint64_t now = now_();
  for (std::size_t s = 0; s < sched.rounds.size(); ++s) {
    std::vector<std::uint16_t> ex;
    std::vector<std::uint16_t> se;
    for (const auto r : sched.rounds[s].expect_from) {
      ex.push_back(lids.at(r));
      PktHdr h;
      h.set_pkt_type(PktType::kNotify).set_len_flits(1).set_src_lid(lids.at(r));
      h.set_dst_lid(kOwnLid).set_ctx(static_cast<std::uint8_t>(ctx)).set_epoch(epoch);
      h.set_round(static_cast<std::uint8_t>(s));
      const Key k{ctx, epoch, static_cast<unsigned>(s), lids.at(r)};
      push(h, now + base + s * round_gap + draw(0, skew, 1, k, 0));
    }
    for (const auto r : sched.rounds[s].send_to) {
      se.push_back(lids.at(r));
    }
    e.expect.push_back(ex);
    e.sends.push_back(se);
  }
  exps_.push_back(std::move(e));
}

void PeerWorld::abandon(unsigned ctx, std::uint16_t epoch) {
  std::erase_if(exps_, [&](const BarrierExp& e) { return e.ctx == ctx && e.epoch == epoch; });
  std::erase_if(inject_, [&](const auto& kv) {
    return kv.second.pkt_type() == PktType::kNotify && kv.second.ctx() == ctx &&
           kv.second.epoch() == epoch;
  });
  auto mine = [&](const auto& kv) {
    return std::get<0>(kv.first) == ctx && std::get<1>(kv.first) == epoch;
  };
  for (const auto& kv : taken_) {
    TB_CHECK(!mine(kv) || kv.second.empty())
        << "abandoned barrier still owed a response: "
        << key_text(ctx, epoch, std::get<2>(kv.first), std::get<3>(kv.first));
  }
  std::erase_if(taken_, mine);
  std::erase_if(accepted_, mine);
  std::erase_if(sends_, mine);
}

void PeerWorld::inject_garbage(const fmt::PktHdr& h, std::uint64_t delay) {
  push(h, now_() + delay);
  ++counts_.garbage;
}

void PeerWorld::send_again(unsigned ctx, std::uint16_t epoch, unsigned round, std::uint16_t lid,
                           std::uint64_t delay) {
  const Key k{ctx, epoch, round, lid};
  TB_CHECK(accepted_.count(k) != 0)
      << "send_again of a NOTIFY not ACKed yet: " << key_text(ctx, epoch, round, lid);
  PktHdr h;
  h.set_pkt_type(PktType::kNotify).set_len_flits(1).set_src_lid(lid).set_dst_lid(kOwnLid);
  h.set_ctx(static_cast<std::uint8_t>(ctx))
      .set_epoch(epoch)
      .set_round(static_cast<std::uint8_t>(round));
  ++dups_owed_[k];
  push(h, now_() + delay);
}

void PeerWorld::inject_packet(Packet p, std::uint64_t delay) {
  TB_CHECK(!p.empty()) << "an injected packet has at least one flit";
  packets_.emplace(now_() + delay, std::move(p));
}

Packet PeerWorld::pop_due_packet() {
  Packet p = std::move(packets_.begin()->second);
  packets_.erase(packets_.begin());
  return p;
}

const BarrierExp* PeerWorld::find(unsigned ctx, std::uint16_t epoch) const {
  for (const auto& e : exps_) {
    if (e.ctx == ctx && e.epoch == epoch) {
      return &e;
    }
  }
  return nullptr;
}

std::uint64_t PeerWorld::last_accept_cycle(unsigned ctx, std::uint16_t epoch) const {
  std::uint64_t last = 0;
  for (const auto& [k, c] : accepted_) {
    if (std::get<0>(k) == ctx && std::get<1>(k) == epoch) {
      last = std::max(last, c);
    }
  }
  return last;
}

std::uint64_t PeerWorld::draw(std::uint64_t lo, std::uint64_t hi, std::uint64_t what, const Key& k,
                              unsigned n) const {
  // splitmix64 over the event's identity.
  std::uint64_t x = salt_ ^ (what * 0x9E3779B97F4A7C15ULL);
  for (const std::uint64_t v :
       {static_cast<std::uint64_t>(std::get<0>(k)), static_cast<std::uint64_t>(std::get<1>(k)),
        static_cast<std::uint64_t>(std::get<2>(k)), static_cast<std::uint64_t>(std::get<3>(k)),
        static_cast<std::uint64_t>(n)}) {
    x += v + 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27U)) * 0x94D049BB133111EBULL;
    x ^= x >> 31U;
  }
  return lo + x % (hi - lo + 1);
}

bool PeerWorld::draw_chance(double p, std::uint64_t what, const Key& k, unsigned n) const {
  return static_cast<double>(draw(0, 999'999, what, k, n)) < p * 1e6;
}

fmt::PktHdr PeerWorld::pop_due() {
  fmt::PktHdr h = inject_.begin()->second;
  inject_.erase(inject_.begin());
  return h;
}

std::size_t NetworkBfm::inject(Packet p, std::uint64_t delay) {
  TB_CHECK(!p.empty()) << "an injected packet has at least one flit";
  Injected in;
  in.flits = std::move(p);
  injected_.push_back(std::move(in));
  raw_.emplace(clk_.cycles() + delay, injected_.size() - 1);
  return injected_.size() - 1;
}

Task<> NetworkBfm::run() {
  if (clk_.sim().in_readonly()) {
    co_await RisingEdge(clk_);
  }
  for (;;) {
    const std::uint64_t cyc = clk_.cycles();
    if (!rx_busy_) {
      // Injected packets first, then the peers' headers, each in due order.
      if (!raw_.empty() && raw_.begin()->first <= cyc) {
        rx_cur_ = Cur{injected_[raw_.begin()->second].flits, 0, raw_.begin()->second, false, {}};
        raw_.erase(raw_.begin());
        rx_busy_ = true;
      } else if (world_.has_due_packet(cyc)) {
        rx_cur_ = Cur{world_.pop_due_packet(), 0, SIZE_MAX, false, {}};
        rx_busy_ = true;
      } else if (world_.has_due(cyc)) {
        rx_cur_ = Cur{};
        rx_cur_.hdr = world_.pop_due();
        rx_cur_.flits = {flit_of(rx_cur_.hdr)};
        rx_busy_ = true;
      }
    }
    // A bubble inside a packet now and then (never before its first flit,
    // so that a packet's start stays where the test put it).
    rx_shown_ = rx_busy_ && !(rx_cur_.next > 0 && chance(rng_, knobs_.rx_gap));
    if (rx_shown_) {
      drive_flit(dut_.rx_data_i, rx_cur_.flits[rx_cur_.next]);
      dut_.rx_last_i = rx_cur_.next + 1 == rx_cur_.flits.size();
    }
    dut_.rx_valid_i = rx_shown_;
    dut_.tx_ready_i = !hold_tx_ && !chance(rng_, knobs_.tx_stall);
    co_await ReadOnly();
    const std::uint64_t now = clk_.cycles();
    if (rx_shown_) {
      if (rx_cur_.raw != SIZE_MAX) {
        Injected& in = injected_[rx_cur_.raw];
        if (in.shown.size() == rx_cur_.next) {
          in.shown.push_back(now);
        }
      }
      if (dut_.rx_ready_o != 0) {
        if (rx_cur_.raw != SIZE_MAX) {
          injected_[rx_cur_.raw].taken.push_back(now);
        }
        if (++rx_cur_.next == rx_cur_.flits.size()) {
          if (rx_cur_.peer) {
            world_.taken(rx_cur_.hdr, now);
          }
          rx_busy_ = false;
        }
      }
    }
    if (dut_.tx_valid_o != 0) {
      const Flit f = read_flit(dut_.tx_data_o);
      const bool last = dut_.tx_last_o != 0;
      if (flit_waiting_ && f != tx_wait_flit_) {
        TB_CHECK(allow_withdraw_ && tx_pkt_.empty())
            << "a flit shown at cycle " << flit_shown_ << " changed before it was taken";
        tx_wait_.reset();
        flit_waiting_ = false;
      }
      if (!flit_waiting_) {
        flit_waiting_ = true;
        flit_shown_ = now;
        tx_wait_flit_ = f;
        if (tx_pkt_.empty()) {
          // A header: MGMT packets are the mailbox's MGMT_FLITS flits, every
          // other packet one flit.
          const PktHdr h = hdr_of(f);
          TB_CHECK_EQ(h.prio(), tc_) << "prio = NET_CFG.TC on every packet";
          if (h.pkt_type() == PktType::kMgmt) {
            TB_CHECK(!last) << "a MGMT header with tx_last_o";
            TB_CHECK_EQ(h.len_flits(), fmt::kMgmtFlits) << "MGMT len_flits";
          } else {
            TB_CHECK(last) << "every packet but MGMT is one flit (tx_last_o)";
            TB_CHECK_EQ(h.len_flits(), 1U) << "one-flit packets only";
          }
          tx_wait_ = Sent{now, 0, h};
        } else {
          TB_CHECK_EQ(last, tx_pkt_.size() + 1 == fmt::kMgmtFlits)
              << "tx_last_o on flit " << tx_pkt_.size() << " of a MGMT packet";
        }
      }
      if (dut_.tx_ready_i != 0) {
        flit_waiting_ = false;
        if (tx_pkt_.empty()) {
          tx_wait_->taken = now;
          sent_.push_back(*tx_wait_);
          const PktHdr h = tx_wait_->hdr;
          tx_wait_.reset();
          if (last) {
            world_.transmitted(h, now);
          } else {
            tx_pkt_ = {f};
            tx_pkt_shown_ = sent_.back().shown;
          }
        } else {
          tx_pkt_.push_back(f);
          if (last) {
            mgmt_sent_.push_back(MgmtSent{tx_pkt_shown_, now, tx_pkt_});
            tx_pkt_.clear();
          }
        }
      }
    } else {
      TB_CHECK(tx_pkt_.empty()) << "a bubble on tx inside a MGMT packet (cycle " << now << ")";
      if (flit_waiting_) {
        TB_CHECK(allow_withdraw_) << "a header shown at cycle " << flit_shown_
                                  << " was withdrawn before it was taken";
        tx_wait_.reset();
        flit_waiting_ = false;
      }
    }
    co_await RisingEdge(clk_);
  }
}

void PeerWorld::taken(const fmt::PktHdr& h, std::uint64_t cycle) {
  const Key k{h.ctx(), h.epoch(), h.round(), h.src_lid()};
  if (h.dst_lid() != kOwnLid || h.len_flits() != 1) {
    return;  // garbage: counted when injected
  }
  if (h.pkt_type() == PktType::kNotify) {
    if (find(h.ctx(), h.epoch()) == nullptr) {
      return;
    }
    taken_[k].push_back(cycle);
    resp_order_.push_back(k);
  } else if (h.pkt_type() == PktType::kAck || h.pkt_type() == PktType::kNack) {
    auto it = sends_.find(k);
    if (it == sends_.end()) {
      return;  // garbage response
    }
    it->second.outstanding = false;
    if (h.pkt_type() == PktType::kAck) {
      it->second.acked = true;
      it->second.ack_take = cycle;
    }
  }
}

void PeerWorld::transmitted(const fmt::PktHdr& h, std::uint64_t cycle) {
  TB_CHECK_EQ(h.len_flits(), 1U) << "one-flit packets only";
  TB_CHECK_EQ(h.src_lid(), kOwnLid) << "src_lid = NODE_LID (§4, §6)";
  const unsigned ctx = h.ctx();
  const std::uint16_t epoch = h.epoch();
  const unsigned round = h.round();
  if (h.pkt_type() == PktType::kNotify) {
    const BarrierExp* e = find(ctx, epoch);
    TB_CHECK(e != nullptr) << "NOTIFY for no barrier: " << key_text(ctx, epoch, round, h.dst_lid());
    TB_CHECK(round < e->sends.size()) << "NOTIFY round out of schedule";
    const auto& dsts = e->sends[round];
    TB_CHECK(std::find(dsts.begin(), dsts.end(), h.dst_lid()) != dsts.end())
        << "NOTIFY to a peer the schedule does not name: "
        << key_text(ctx, epoch, round, h.dst_lid());
    const Key sk{ctx, epoch, round, h.dst_lid()};
    ++notify_counts_[sk];
    SendRec& s = sends_[sk];
    TB_CHECK(!s.outstanding) << "second NOTIFY before the first was answered: "
                             << key_text(ctx, epoch, round, h.dst_lid());
    TB_CHECK(!s.acked) << "NOTIFY after its ACK: " << key_text(ctx, epoch, round, h.dst_lid());
    if (s.sent > 0) {
      ++counts_.resends;
    }
    ++s.sent;
    ++counts_.notif_sent;
    s.outstanding = true;
    s.fired.push_back(cycle);
    bool nack = false;
    if (forced_nacks_ > 0) {
      --forced_nacks_;
      nack = true;
    } else if (s.nacked < knobs_.max_nacks && draw_chance(knobs_.nack, 2, sk, s.sent)) {
      nack = true;
    }
    if (nack) {
      ++s.nacked;
      ++counts_.nacks_to_nic;
    }
    PktHdr r;
    r.set_pkt_type(nack ? PktType::kNack : PktType::kAck).set_len_flits(1);
    r.set_src_lid(h.dst_lid()).set_dst_lid(kOwnLid).set_ctx(h.ctx()).set_epoch(epoch);
    r.set_round(h.round());
    push(r, cycle + draw(1, std::max(1U, knobs_.resp_delay), 3, sk, s.sent));
    return;
  }
  if (h.pkt_type() == PktType::kArrive || h.pkt_type() == PktType::kRelease ||
      h.pkt_type() == PktType::kCombArrive) {
    return;  // group barriers' packets: the tests that make them read NetworkBfm::sent()
  }
  TB_CHECK(h.pkt_type() == PktType::kAck || h.pkt_type() == PktType::kNack)
      << "unexpected packet type " << static_cast<unsigned>(h.pkt_type());
  TB_CHECK(!resp_order_.empty()) << "ACK/NACK with no NOTIFY owed an answer";
  const Key k = resp_order_.front();
  resp_order_.pop_front();
  ++response_counts_[{Key(ctx, epoch, round, h.dst_lid()), h.pkt_type() == PktType::kNack}];
  // §4: responses in take order, dst = the NOTIFY's src, fields copied.
  TB_CHECK(k == Key(ctx, epoch, round, h.dst_lid()))
      << "response does not answer the oldest NOTIFY: got "
      << key_text(ctx, epoch, round, h.dst_lid()) << ", owed "
      << key_text(std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k));
  auto& copies = taken_[k];
  const std::uint64_t took = copies.front();
  copies.pop_front();
  if (h.pkt_type() == PktType::kAck && accepted_.count(k) != 0) {
    // Only a NOTIFY the peer sent again after its ACK gets a second one.
    auto owed = dups_owed_.find(k);
    TB_CHECK(owed != dups_owed_.end() && owed->second > 0)
        << "second ACK for " << key_text(ctx, epoch, round, h.dst_lid());
    --owed->second;
    ++counts_.dup_acks;
  } else if (h.pkt_type() == PktType::kAck) {
    ++counts_.acks_from_nic;
    accepted_[k] = took;
    if (draw_chance(knobs_.dup, 6, k, 0)) {
      PktHdr again;
      again.set_pkt_type(PktType::kNotify).set_len_flits(1).set_src_lid(h.dst_lid());
      again.set_dst_lid(kOwnLid).set_ctx(h.ctx()).set_epoch(epoch).set_round(h.round());
      ++dups_owed_[k];
      push(again, cycle + draw(1, std::max(1U, knobs_.peer_retry), 7, k, 0));
    }
  } else {
    ++counts_.nacks_from_nic;
    PktHdr again;
    again.set_pkt_type(PktType::kNotify).set_len_flits(1).set_src_lid(h.dst_lid());
    again.set_dst_lid(kOwnLid).set_ctx(h.ctx()).set_epoch(epoch).set_round(h.round());
    const unsigned n = ++peer_sends_[k];
    const unsigned lo = std::max(1U, knobs_.peer_retry_min);
    push(again, cycle + draw(lo, std::max(lo, knobs_.peer_retry), 4, k, n));
  }
}

void PeerWorld::verify(const std::vector<CqWrite>& cq) const {
  for (const auto& e : exps_) {
    const CqWrite* rec = nullptr;
    for (const auto& w : cq) {
      if (w.ctx == e.ctx && w.epoch == e.epoch && w.status == 0) {
        TB_CHECK(rec == nullptr) << "two completions of ctx " << e.ctx << " epoch " << e.epoch;
        rec = &w;
      }
    }
    TB_CHECK(rec != nullptr) << "no OK completion of ctx " << e.ctx << " epoch " << e.epoch;
    // §7: complete only after every expected notification was received and
    // every send ACKed (the safety property of the barrier).
    for (std::size_t s = 0; s < e.expect.size(); ++s) {
      for (const auto lid : e.expect[s]) {
        const auto it = accepted_.find(Key{e.ctx, e.epoch, static_cast<unsigned>(s), lid});
        TB_CHECK(it != accepted_.end() && it->second < rec->cycle)
            << "completed at cycle " << rec->cycle << " before hearing "
            << key_text(e.ctx, e.epoch, static_cast<unsigned>(s), lid);
      }
      for (const auto lid : e.sends[s]) {
        const auto it = sends_.find(Key{e.ctx, e.epoch, static_cast<unsigned>(s), lid});
        TB_CHECK(it != sends_.end() && it->second.acked && it->second.ack_take < rec->cycle)
            << "completed at cycle " << rec->cycle << " before the ACK of "
            << key_text(e.ctx, e.epoch, static_cast<unsigned>(s), lid);
        // §6 round gate: every send of round s leaves only after every
        // notification of rounds < s was received.
        for (const auto fired : it->second.fired) {
          for (std::size_t b = 0; b < s; ++b) {
            for (const auto src : e.expect[b]) {
              const auto a = accepted_.find(Key{e.ctx, e.epoch, static_cast<unsigned>(b), src});
              TB_CHECK(a != accepted_.end() && a->second < fired)
                  << "round " << s << " NOTIFY at cycle " << fired << " before hearing "
                  << key_text(e.ctx, e.epoch, static_cast<unsigned>(b), src);
            }
          }
        }
      }
    }
  }
  TB_CHECK(resp_order_.empty()) << resp_order_.size() << " NOTIFYs never answered";
}

// ------------------------------------------------------------------- bench

void hold_in_reset(Vnic_top& dut, ApbMaster& apb) {
  apb.idle();
  dut.rst_ni = 0;
  dut.pprot_i = 0;
  dut.rx_valid_i = 0;
  dut.rx_last_i = 0;
  dut.tx_ready_i = 0;
  dut.mem_req_ready_i = 0;
  dut.mem_rsp_valid_i = 0;
}

Bench::Bench(TestContext& c, Knobs k, std::uint64_t salt)
    : ctx(c),
      knobs(k),
      dut(c.make_dut<Vnic_top>()),
      clk(c.sim().add_clock("clk", dut.clk_i, kPeriod)),
      apb(clk, apb_pins_of(dut, kCsrWindow)),
      memory(kMemBase, kMemBytes),
      mem(dut, clk, c.rng(), memory, knobs),
      world([this] { return clk.cycles(); }, salt, knobs),
      net(dut, clk, c.rng(), world, knobs),
      dev(
          c.sim(), clk, apb, [this] { return dut.intr_o != 0; }, memory, kCsrWindow) {}

Task<> Bench::reset() {
  hold_in_reset(dut, apb);
  co_await ClockCycles(clk, 3);
  dut.rst_ni = 1;
  co_await RisingEdge(clk);
}

void Bench::start() {
  ctx.sim().start_soon(mem.run(), "memory bfm");
  ctx.sim().start_soon(net.run(), "network bfm");
}

void Bench::set_node_lid(std::uint16_t lid) {
  dev.write32(static_cast<std::uint32_t>(offsetof(nic_csr_t, NODE_LID)), lid);
}

void Bench::set_tc(unsigned tc) {
  dev.write32(static_cast<std::uint32_t>(offsetof(nic_csr_t, NET_CFG)), tc);
  net.expect_tc(tc);
}

void Bench::watch_cq() {
  const std::uint64_t base =
      (static_cast<std::uint64_t>(dev.read32(offsetof(nic_csr_t, CQ_BASE_HI))) << 32U) |
      dev.read32(offsetof(nic_csr_t, CQ_BASE_LO));
  mem.watch_cq(base, dev.read32(offsetof(nic_csr_t, CQ_SIZE)));
}

void Bench::idle_cycles(std::uint64_t n) {
  ctx.sim().run([](Clock& c, std::uint64_t k) -> Task<> { co_await ClockCycles(c, k); }(clk, n),
                "idle");
}

std::vector<std::uint16_t> rank_lids(std::uint32_t p, std::uint32_t rank) {
  std::vector<std::uint16_t> lids(p);
  for (std::uint32_t i = 0; i < p; ++i) {
    lids[i] = static_cast<std::uint16_t>(0x0200 + i);
  }
  lids[rank] = kOwnLid;
  return lids;
}

driver::NicOptions nic_options(Sim& sim, std::uint32_t retry_delay) {
  driver::NicOptions o;
  o.poll_interval = std::chrono::nanoseconds(40);
  o.cq_entries = 16;
  o.sdq_entries = 8;
  o.retry_delay_cycles = retry_delay;
  o.retry_limit = 0;
  Sim* s = &sim;
  o.clock = [s] { return std::chrono::nanoseconds(s->now() / 1000); };
  return o;
}

driver::NicOptions nic_options(Bench& b, std::uint32_t retry_delay) {
  return nic_options(b.ctx.sim(), retry_delay);
}

}  // namespace syncfab::tb::nic_top
