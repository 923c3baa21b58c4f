// nic_top's data path (docs/nic/dcqcn.md) against the golden model, cycle by
// cycle: the verilated nic_top beside a model::BarrierEngine with
// EngineConfig::data_path on, the same APB transfers and the same link
// inputs (rx flits, tx_ready) in every cycle.
//
// Alignment. An APB transfer is a setup cycle s and an access cycle s + 1
// (zero wait states); the RTL's write lands at the edge closing s + 1 and
// acts from s + 2. The model's CSR port takes no time: its write is made
// after its step of cycle s + 1, its read before it (the RTL's PRDATA in
// s + 1 shows the state that cycle). With that, nothing is tolerated:
//   - every cycle: tx_valid_o / tx_data_o / tx_last_o equal the model's
//     tx_flit() (every flit: DATA headers and payload, CNPs, MGMT packets),
//     and rx_ready_o its rx_ready() for the flit offered;
//   - every APB access: PSLVERR equals the model's hw::BusError, a read's
//     PRDATA its value (random reads of the flow views, FLOW_SUMMARY and the
//     counters during the run);
//   - at the end: every flow's FLOW_STATUS, FLOW_SENT, FLOW_RATE (RC),
//     FLOW_TARGET (RT), FLOW_ALPHA and FLOW_CNP, FLOW_SUMMARY, every counter
//     of the data path and of the barrier engine.
// Stimulus (seeded): the rate-law parameters drawn with short timers so that
// every event happens in a short run; flows started on entries that are not
// RUNNING (random length, count, priority, ECT, destination, sometimes a bad
// one: every START error), STOPs, refused writes (rates and G_SHIFT out of
// range, FLOW_SEL / FLOW_CTRL.INDEX out of range, START and STOP together,
// START of a RUNNING entry); on rx DATA packets for this NIC, CE-marked or
// not, malformed ones, CNPs for running flows, for no flow, malformed and
// multi-flit ones, PFC pauses of the flows', the CNPs' and the engine's
// priorities; tx_ready low now and then; mailbox MGMT datagrams sent on the
// barrier engine's side of the arbiter. At the end every flow is stopped
// and the link drained.
#include <Vnic_top.h>

#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/model/nic_link.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "nic_top_bench.hpp"
#include "syncfab/hw/dcqcn_regs.hpp"
#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/hw/nic_regs.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
using namespace syncfab::tb::nic_top;
namespace dq = syncfab::hw::dcqcn;
namespace hw = syncfab::hw;
namespace fmt = syncfab::fmt;
namespace model = syncfab::model;
namespace nic = syncfab::hw::nic;

namespace {

constexpr unsigned kFlows = fmt::kNumFlows;
constexpr std::array<std::uint16_t, 4> kPeers{0x0201, 0x0202, 0x0203, 0x0204};

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

std::string flit_text(const std::optional<model::LinkFlit>& f) {
  if (!f) {
    return "(none)";
  }
  std::ostringstream os;
  for (std::size_t i = f->data.size(); i-- > 0;) {
    os << std::hex << (f->data[i] >> 4U) << (f->data[i] & 0xFU);
  }
  os << (f->last ? " last" : "");
  return os.str();
}

// One APB transfer, made on both sides.
struct Access {
  std::uint32_t addr = 0;  // byte offset in the NIC's window
  bool write = false;
  std::uint32_t data = 0;
  std::string what;
  bool expect_error = false;  // the test's own expectation (refusals), besides the model's
  std::optional<std::uint32_t> expect_value;  // a read's value by hand, besides the model's
};

// What the test knows of a flow-table entry (to aim CNPs and STARTs).
struct FlowInfo {
  bool started = false;
  std::uint16_t dst = 0;
  std::uint32_t label = 0;
  std::uint32_t pkts = 0;
};

class Cosim {
 public:
  Cosim(TestContext& ctx, Vnic_top& dut, Clock& clk)
      : ctx_(ctx), dut_(dut), clk_(clk), memory_(kMemBase, kMemBytes), eng_(config(), memory_) {}

  static model::EngineConfig config() {
    model::EngineConfig c;
    c.lid = kOwnLid;
    c.num_ctx = kNumCtx;
    c.hdq_depth = 2;
    c.req_damq_entries = 4;
    c.data_path = true;
    return c;
  }

  Task<> reset() {
    dut_.rst_ni = 0;
    dut_.psel_i = 0;
    dut_.penable_i = 0;
    dut_.pwrite_i = 0;
    dut_.pprot_i = 0;
    dut_.paddr_i = 0;
    dut_.pwdata_i = 0;
    dut_.pstrb_i = 0;
    dut_.rx_valid_i = 0;
    dut_.rx_last_i = 0;
    dut_.tx_ready_i = 0;
    dut_.mem_req_ready_i = 1;
    dut_.mem_rsp_valid_i = 0;
    dut_.mem_rsp_err_i = 0;
    co_await ClockCycles(clk_, 3);
    dut_.rst_ni = 1;
    co_await RisingEdge(clk_);
  }

  void queue(Access a) { apb_.push_back(std::move(a)); }
  void write(const hw::Reg& r, std::uint32_t v, bool expect_error = false) {
    queue({dq::kBase + r.offset, true, v, std::string(r.name), expect_error, std::nullopt});
  }
  void nic_write(const hw::Reg& r, std::uint32_t v) {
    queue({r.offset, true, v, std::string(r.name), false, std::nullopt});
  }
  void read(const hw::Reg& r) {
    queue({dq::kBase + r.offset, false, 0, std::string(r.name), false, std::nullopt});
  }
  void expect(const hw::Reg& r, std::uint32_t v) {
    queue({dq::kBase + r.offset, false, 0, std::string(r.name), false, v});
  }
  void expect_counter(dq::Counter c, std::uint32_t v) {
    const auto i = static_cast<unsigned>(c);
    queue({dq::kBase + dq::kCounterOffsets.at(i), false, 0, std::string(dq::kCounterNames.at(i)),
           false, v});
  }
  void read_at(std::uint32_t addr, std::string what) {
    queue({addr, false, 0, std::move(what), false, std::nullopt});
  }
  [[nodiscard]] bool apb_idle() const { return apb_.empty() && !apb_cur_; }
  // A mailbox SEND written on the RTL and not yet on the model.
  [[nodiscard]] bool mbox_send_pending() const { return deferred_.has_value(); }

  void send(std::vector<model::LinkFlit> pkt) { rx_.push_back(std::move(pkt)); }
  [[nodiscard]] bool rx_idle() const { return rx_.empty() && !rx_cur_; }
  void set_ready_prob(double p) { p_ready_ = p; }

  [[nodiscard]] const model::BarrierEngine& engine() const { return eng_; }
  [[nodiscard]] const model::DataPath& dp() const { return *eng_.data_path(); }
  [[nodiscard]] std::uint64_t n() const { return n_; }
  [[nodiscard]] std::uint64_t tx_flits() const { return tx_flits_; }
  [[nodiscard]] std::uint64_t reads() const { return reads_; }
  [[nodiscard]] std::uint64_t refused() const { return refused_; }

  // One cycle on both sides, compared.
  Task<> cycle() {
    auto& rng = ctx_.rng();
    // ---- inputs of this cycle --------------------------------------------
    if (!rx_cur_ && !rx_.empty() && std::uniform_int_distribution<int>(0, 9)(rng) != 0) {
      rx_cur_ = std::move(rx_.front());
      rx_.pop_front();
      rx_pos_ = 0;
    }
    std::optional<model::LinkFlit> offer;
    if (rx_cur_ && (rx_pos_ == 0 || std::uniform_int_distribution<int>(0, 15)(rng) != 0)) {
      offer = rx_cur_->at(rx_pos_);
    }
    dut_.rx_valid_i = offer ? 1 : 0;
    dut_.rx_last_i = offer && offer->last ? 1 : 0;
    drive_flit(dut_.rx_data_i, offer ? offer->data : Flit{});
    const bool tx_ready = std::uniform_real_distribution<double>(0, 1)(rng) < p_ready_;
    dut_.tx_ready_i = tx_ready ? 1 : 0;

    bool access = false;
    if (apb_cur_) {
      dut_.penable_i = 1;  // access phase
      access = true;
    } else if (!apb_.empty()) {
      apb_cur_ = std::move(apb_.front());
      apb_.pop_front();
      dut_.psel_i = 1;
      dut_.penable_i = 0;
      dut_.pwrite_i = apb_cur_->write ? 1 : 0;
      dut_.paddr_i = apb_cur_->addr;
      dut_.pwdata_i = apb_cur_->data;
      dut_.pstrb_i = apb_cur_->write ? 0xF : 0;
    }

    co_await ReadOnly{};

    // ---- outputs, against the model's ------------------------------------
    const std::optional<model::LinkFlit> want = eng_.tx_flit();
    std::optional<model::LinkFlit> got;
    if (dut_.tx_valid_o != 0) {
      got = model::LinkFlit{read_flit(dut_.tx_data_o), dut_.tx_last_o != 0};
    }
    TB_CHECK(got == want) << "cycle " << n_ << ": tx rtl " << flit_text(got) << ", model "
                          << flit_text(want);
    if (offer) {
      TB_CHECK_EQ(dut_.rx_ready_o != 0, eng_.rx_ready(*offer))
          << "cycle " << n_ << ": rx_ready for " << flit_text(offer);
    }
    bool rtl_err = false;
    std::uint32_t rtl_rdata = 0;
    std::optional<std::uint32_t> model_rdata;
    bool model_err = false;
    if (access) {
      TB_CHECK(dut_.pready_o != 0) << "cycle " << n_ << ": " << apb_cur_->what << ": no PREADY";
      rtl_err = dut_.pslverr_o != 0;
      rtl_rdata = dut_.prdata_o;
      if (!apb_cur_->write) {
        try {
          model_rdata = eng_.csr_read(apb_cur_->addr);
        } catch (const hw::BusError&) {
          model_err = true;
        }
      }
    }

    // ---- the model's cycle, then the write that landed in it ---------------
    model::NetIn in;
    in.rx = offer;
    in.tx_ready = tx_ready;
    const model::NetOut out = eng_.step(in);
    if (deferred_) {
      bool late_err = false;
      try {
        eng_.csr_write(deferred_->addr, deferred_->data);
      } catch (const hw::BusError&) {
        late_err = true;
      }
      TB_CHECK_EQ(deferred_err_, late_err) << deferred_->what << ": PSLVERR";
      deferred_.reset();
    }
    TB_CHECK_EQ(out.rx_taken, offer.has_value() && dut_.rx_ready_o != 0) << "cycle " << n_;
    if (got && tx_ready) {
      ++tx_flits_;
    }
    if (access) {
      const Access& a = *apb_cur_;
      if (a.write && a.addr == nic::MBOX_TX_CTRL.offset) {
        // The RTL's mailbox takes SEND from the register block's single
        // pulse, a cycle after the write: the model's write one cycle later.
        deferred_ = a;
        deferred_err_ = rtl_err;
        model_err = rtl_err;
      } else if (a.write) {
        try {
          eng_.csr_write(a.addr, a.data);
        } catch (const hw::BusError&) {
          model_err = true;
        }
      }
      TB_CHECK_EQ(rtl_err, model_err) << "cycle " << n_ << ": " << a.what << " " << hex(a.addr)
                                      << (a.write ? " write " + hex(a.data) : " read")
                                      << ": PSLVERR rtl " << rtl_err << " model " << model_err;
      if (a.expect_error) {
        TB_CHECK(rtl_err) << a.what << " " << hex(a.data) << ": not refused";
      }
      if (a.expect_value) {
        TB_CHECK(!rtl_err) << a.what << ": PSLVERR";
        TB_CHECK_EQ(rtl_rdata, *a.expect_value) << a.what;
      }
      if (model_rdata && !rtl_err) {
        TB_CHECK_EQ(rtl_rdata, *model_rdata)
            << "cycle " << n_ << ": read " << a.what << " " << hex(a.addr);
        ++reads_;
      }
      if (rtl_err) {
        ++refused_;
      }
      apb_cur_.reset();
    }

    co_await RisingEdge(clk_);
    dut_.psel_i = apb_cur_ ? 1 : 0;
    if (!apb_cur_) {
      dut_.penable_i = 0;
    }
    if (offer && out.rx_taken) {
      if (++rx_pos_ == rx_cur_->size()) {
        rx_cur_.reset();
      }
    }
    ++n_;
  }

 private:
  TestContext& ctx_;
  Vnic_top& dut_;
  Clock& clk_;
  hw::HostMemory memory_;
  model::BarrierEngine eng_;
  std::deque<Access> apb_;
  std::optional<Access> apb_cur_;
  std::optional<Access> deferred_;  // a mailbox SEND, made on the model a cycle late
  bool deferred_err_ = false;
  std::deque<std::vector<model::LinkFlit>> rx_;
  std::optional<std::vector<model::LinkFlit>> rx_cur_;
  std::size_t rx_pos_ = 0;
  double p_ready_ = 0.9;
  std::uint64_t n_ = 0;
  std::uint64_t tx_flits_ = 0;
  std::uint64_t reads_ = 0;
  std::uint64_t refused_ = 0;
};

std::vector<model::LinkFlit> packet(const fmt::PktHdr& h, unsigned flits) {
  std::vector<model::LinkFlit> p;
  p.push_back(model::LinkFlit{flit_of(h), flits == 1});
  for (unsigned i = 1; i < flits; ++i) {
    Flit f{};
    f[0] = static_cast<std::uint8_t>(i);
    f[15] = 0xA5;
    p.push_back(model::LinkFlit{f, i + 1 == flits});
  }
  return p;
}

std::vector<model::LinkFlit> pfc(std::uint8_t classes, std::uint16_t quanta) {
  const Packet p = pfc_packet(pfc_frame(classes, quanta));
  return {model::LinkFlit{p[0], false}, model::LinkFlit{p[1], true}};
}

// Reads every register the driver reads: the flow views of every entry,
// FLOW_SUMMARY, HW_CFG / ID, every counter of both blocks.
void read_all(Cosim& s) {
  s.read(dq::ID);
  s.read(dq::VERSION);
  s.read(dq::HW_CFG);
  s.read(dq::CTRL);
  s.read(dq::FLOW_SUMMARY);
  for (unsigned f = 0; f < kFlows; ++f) {
    s.write(dq::FLOW_SEL, f);
    for (const hw::Reg& r : {dq::FLOW_STATUS, dq::FLOW_SENT, dq::FLOW_RATE, dq::FLOW_TARGET,
                             dq::FLOW_ALPHA, dq::FLOW_CNP}) {
      s.read(r);
    }
  }
  for (unsigned c = 0; c < dq::kNumCounters; ++c) {
    s.read_at(dq::kBase + dq::kCounterOffsets.at(c), std::string(dq::kCounterNames.at(c)));
  }
  for (const auto r : nic::kCounters) {
    s.read_at(r.offset, std::string(r.name));
  }
}

Task<> run_until(Cosim& s, auto done, std::uint64_t limit, const char* what) {
  const std::uint64_t end = s.n() + limit;
  while (!done()) {
    TB_CHECK(s.n() < end) << what << ": not done after " << limit << " cycles";
    co_await s.cycle();
  }
}

}  // namespace

SYNCFAB_TEST(nic_top_dcqcn, random_vs_model) {
  const std::int64_t cycles = ctx.param("cycles", 6000);
  auto& rng = ctx.rng();
  auto& dut = ctx.make_dut<Vnic_top>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Cosim s(ctx, dut, clk);
  co_await s.reset();

  auto pick = [&](std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng);
  };
  std::uniform_real_distribution<double> u(0.0, 1.0);

  Corners cov("nic_top_dcqcn random");
  const auto c_start = cov.require("flow started", 3);
  const auto c_start_bad = cov.require("START with a bad configuration");
  const auto c_refused = cov.require("refused write", 3);
  const auto c_cnp_known = cov.require("CNP for a running flow sent to the NIC");
  const auto c_cnp_unknown = cov.require("CNP for no flow sent to the NIC");
  const auto c_ce = cov.require("CE-marked DATA sent to the NIC", 5);
  const auto c_pause = cov.require("PFC pause sent to the NIC", 2);
  const auto c_mgmt = cov.require("MGMT datagram sent by the NIC");

  // ---- configuration: scaled-down timers, the rest drawn ----------------
  s.nic_write(nic::NODE_LID, kOwnLid);
  s.nic_write(nic::PFC_CFG, (0xFFU << nic::PFC_CFG_ENABLE.shift) |
                                (pick(1, 3) << nic::PFC_CFG_CYC_PER_QUANTUM.shift));
  s.write(dq::ALPHA_CFG, pick(1, 8));
  s.write(dq::ALPHA_TIMER, pick(10, 300));
  s.write(dq::RATE_TIMER, pick(10, 300));
  s.write(dq::BYTE_COUNTER, pick(16, 2000));
  s.write(dq::RATE_STAGES, pick(0, 5));
  s.write(dq::RATE_AI, pick(64, 4096));
  s.write(dq::RATE_HAI, pick(640, 16384));
  s.write(dq::RATE_MIN, pick(16, 2048));
  s.write(dq::CNP_INTERVAL, u(rng) < 0.2 ? 0 : pick(1, 400));
  const std::uint32_t cnp_prio = pick(0, 7);
  s.write(dq::NP_CFG, cnp_prio);
  s.write(dq::CTRL, (u(rng) < 0.85 ? dq::CTRL_RP_ENABLE.mask : 0U) |
                        (u(rng) < 0.9 ? dq::CTRL_NP_ENABLE.mask : 0U));
  read_all(s);
  // NODE_LID resets to 0 in the RTL, to EngineConfig::lid in the model: no
  // packet comes in before the configuration has landed.
  co_await run_until(
      s, [&] { return s.apb_idle(); }, 1000, "configuration");

  std::array<FlowInfo, kFlows> flows{};
  auto state_of = [&](unsigned f) { return s.dp().flow(f).state; };
  auto labels = std::array<std::uint32_t, 3>{0x00001, 0x5A5A5, 0xFFFFF};
  const double p_rx = std::array{0.05, 0.2, 0.5}.at(pick(0, 2));

  for (std::int64_t i = 0; i < cycles; ++i) {
    // APB: one batch at a time, chosen while the queue is empty, so that the
    // state it was chosen on still holds when it lands.
    if (s.apb_idle() && u(rng) < 0.05) {
      const unsigned f = pick(0, kFlows - 1);
      const double r = u(rng);
      if (r < 0.35 && state_of(f) != fmt::FlowState::kRunning) {
        FlowInfo fi;
        fi.dst = kPeers.at(pick(0, kPeers.size() - 1));
        fi.label = labels.at(pick(0, labels.size() - 1));
        fi.pkts = pick(1, 30);
        unsigned payload = u(rng) < 0.8 ? pick(1, 6) : pick(1, fmt::kDataMaxPayloadFlits);
        const double bad = u(rng);
        if (bad < 0.06) {
          payload = u(rng) < 0.5 ? 0 : fmt::kDataMaxPayloadFlits + 1;
        } else if (bad < 0.1) {
          fi.pkts = 0;
        } else if (bad < 0.15) {
          fi.dst = std::array<std::uint16_t, 3>{0, kOwnLid, fmt::kMlidBase}.at(pick(0, 2));
        }
        if (bad < 0.15) {
          cov.hit(c_start_bad);
        }
        s.write(dq::FLOW_DST, fi.dst);
        s.write(dq::FLOW_CFG, (payload << dq::FLOW_CFG_PAYLOAD_FLITS.shift) |
                                  (pick(0, 7) << dq::FLOW_CFG_PRIO.shift) |
                                  (u(rng) < 0.8 ? dq::FLOW_CFG_ECT.mask : 0U));
        s.write(dq::FLOW_LABEL, fi.label);
        s.write(dq::FLOW_COUNT, fi.pkts);
        s.write(dq::FLOW_CTRL, f | dq::FLOW_CTRL_START.mask);
        fi.started = true;
        flows.at(f) = fi;
        cov.hit(c_start);
      } else if (r < 0.42) {
        s.write(dq::FLOW_CTRL, f | dq::FLOW_CTRL_STOP.mask);
      } else if (r < 0.55) {
        cov.hit(c_refused);
        switch (pick(0, 5)) {
          case 0:
            s.write(dq::RATE_AI, u(rng) < 0.5 ? 0 : pick(fmt::kRateLine + 1, 0x1FFFF), true);
            break;
          case 1:
            s.write(dq::ALPHA_CFG, u(rng) < 0.5 ? 0 : pick(17, 31), true);
            break;
          case 2:
            s.write(dq::FLOW_SEL, pick(kFlows, 255), true);
            break;
          case 3:
            s.write(dq::FLOW_CTRL, f | dq::FLOW_CTRL_START.mask | dq::FLOW_CTRL_STOP.mask, true);
            break;
          case 4:
            s.write(dq::FLOW_CTRL, pick(kFlows, 255) | dq::FLOW_CTRL_START.mask, true);
            break;
          default: {
            // START of a RUNNING entry with packets enough left that it
            // stays RUNNING until the write lands.
            const auto v = s.dp().flow(f);
            if (v.state == fmt::FlowState::kRunning && v.sent + 8 < flows.at(f).pkts) {
              s.write(dq::FLOW_CTRL, f | dq::FLOW_CTRL_START.mask, true);
            } else {
              s.write(dq::RATE_MIN, 0, true);
            }
            break;
          }
        }
      } else if (r < 0.8) {
        s.write(dq::FLOW_SEL, f);
        for (const hw::Reg& reg : {dq::FLOW_STATUS, dq::FLOW_SENT, dq::FLOW_RATE, dq::FLOW_TARGET,
                                   dq::FLOW_ALPHA, dq::FLOW_CNP, dq::FLOW_SUMMARY}) {
          s.read(reg);
        }
      } else if (r < 0.9) {
        const unsigned c = pick(0, dq::kNumCounters - 1);
        s.read_at(dq::kBase + dq::kCounterOffsets.at(c), std::string(dq::kCounterNames.at(c)));
      } else if (!s.engine().mbox_tx_busy() && !s.mbox_send_pending()) {
        // A datagram from the mailbox: the barrier engine's side of the
        // arbiter (when idle: a SEND while busy is ignored, docs/nic/mbox.md).
        s.nic_write(nic::MBOX_TX_DATA0, pick(0, 0xFFFF'FFFFU));
        s.nic_write(nic::MBOX_TX_CTRL,
                    nic::MBOX_TX_CTRL_SEND.mask | (static_cast<std::uint32_t>(kPeers.at(0))
                                                   << nic::MBOX_TX_CTRL_DST_LID.shift));
        cov.hit(c_mgmt);
      }
    }

    // rx: packets into the NIC.
    if (s.rx_idle() && u(rng) < p_rx) {
      const double r = u(rng);
      fmt::PktHdr h;
      if (r < 0.5) {
        const unsigned payload = u(rng) < 0.9 ? pick(0, 8) : pick(9, 40);
        h.set_pkt_type(fmt::PktType::kData)
            .set_len_flits(static_cast<std::uint8_t>(payload + 1))
            .set_dst_lid(u(rng) < 0.95 ? kOwnLid : kPeers.at(1))
            .set_src_lid(kPeers.at(pick(0, kPeers.size() - 1)))
            .set_flow_label((labels.at(pick(0, labels.size() - 1)) + pick(0, 20)) & 0xFFFFFU)
            .set_ecn(u(rng) < 0.6 ? fmt::Ecn::kCe : fmt::Ecn::kEct0);
        if (h.ecn() == fmt::Ecn::kCe) {
          cov.hit(c_ce);
        }
        const unsigned flits = u(rng) < 0.95 ? payload + 1 : pick(1, payload + 3);
        s.send(packet(h, flits));
      } else if (r < 0.8) {
        const unsigned f = pick(0, kFlows - 1);
        const bool known = flows.at(f).started && u(rng) < 0.8;
        h.set_pkt_type(fmt::PktType::kCnp)
            .set_len_flits(1)
            .set_dst_lid(u(rng) < 0.95 ? kOwnLid : kPeers.at(2))
            .set_src_lid(known ? flows.at(f).dst : kPeers.at(pick(0, kPeers.size() - 1)))
            .set_flow_label(known ? flows.at(f).label : pick(0, 0xFFFFF));
        cov.hit(known && state_of(f) == fmt::FlowState::kRunning ? c_cnp_known : c_cnp_unknown);
        const double bad = u(rng);
        if (bad < 0.03) {
          h.set_len_flits(2);
          s.send(packet(h, u(rng) < 0.5 ? 1 : 2));  // refused, or a CNP of two flits
        } else {
          s.send(packet(h, 1));
        }
      } else {
        std::uint8_t classes = 0;
        for (int k = 0; k < 2; ++k) {
          classes |= static_cast<std::uint8_t>(1U << pick(0, 7));
        }
        if (u(rng) < 0.3) {
          classes |= static_cast<std::uint8_t>(1U << cnp_prio);
        }
        const auto quanta = static_cast<std::uint16_t>(u(rng) < 0.3 ? 0 : pick(1, 40));
        s.send(pfc(classes, quanta));
        cov.hit(c_pause);
      }
    }
    s.set_ready_prob(i % 2000 < 200 ? 0.3 : 0.95);
    co_await s.cycle();
  }

  // ---- stop every flow, drain, compare everything ------------------------
  s.set_ready_prob(1.0);
  for (unsigned f = 0; f < kFlows; ++f) {
    s.write(dq::FLOW_CTRL, f | dq::FLOW_CTRL_STOP.mask);
  }
  s.send(pfc(0xFF, 0));  // resume every priority
  co_await run_until(
      s, [&] { return s.apb_idle() && s.rx_idle() && s.dp().idle() && s.engine().quiescent(); },
      20000, "drain");
  read_all(s);
  co_await run_until(
      s, [&] { return s.apb_idle(); }, 2000, "final reads");

  std::cout << "nic_top_dcqcn: " << s.n() << " cycles, " << s.tx_flits() << " tx flits compared, "
            << s.reads() << " register reads compared, " << s.refused()
            << " refused accesses; CNT_DATA_TX " << s.dp().counter(dq::Counter::kDataTx)
            << ", CNT_CNP_TX " << s.dp().counter(dq::Counter::kCnpTx) << ", CNT_CNP_RX "
            << s.dp().counter(dq::Counter::kCnpRx) << ", CNT_DATA_RX_CE "
            << s.dp().counter(dq::Counter::kDataRxCe) << "\n";
  std::cout << cov.report();
  cov.check();
}

// docs/nic/dcqcn.md §5 range checks and §2 refusals: every refused write is
// PSLVERR and leaves the whole register as it was (read back by value).
SYNCFAB_TEST(nic_top_dcqcn, refused_writes) {
  auto& dut = ctx.make_dut<Vnic_top>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Cosim s(ctx, dut, clk);
  co_await s.reset();
  s.nic_write(nic::NODE_LID, kOwnLid);
  s.write(dq::RATE_AI, 100);
  s.write(dq::RATE_AI, 0, true);
  s.write(dq::RATE_AI, fmt::kRateLine + 1, true);
  s.write(dq::RATE_AI, 0x1FFFF, true);
  s.expect(dq::RATE_AI, 100);
  s.write(dq::RATE_AI, fmt::kRateLine);  // the top of the range is taken
  s.expect(dq::RATE_AI, fmt::kRateLine);
  s.write(dq::RATE_HAI, 0, true);
  s.expect(dq::RATE_HAI, dq::kRateHaiReset);
  s.write(dq::RATE_MIN, fmt::kRateLine + 7, true);
  s.expect(dq::RATE_MIN, dq::kRateMinReset);
  s.write(dq::ALPHA_CFG, 0, true);
  s.write(dq::ALPHA_CFG, 17, true);
  s.expect(dq::ALPHA_CFG, dq::kGShiftReset);
  s.write(dq::ALPHA_CFG, 16);
  s.expect(dq::ALPHA_CFG, 16);
  s.write(dq::ALPHA_TIMER, 0, true);
  s.write(dq::RATE_TIMER, 0, true);
  s.write(dq::BYTE_COUNTER, 0, true);
  s.expect(dq::ALPHA_TIMER, dq::kAlphaTimerReset);
  s.expect(dq::RATE_TIMER, dq::kRateTimerReset);
  s.expect(dq::BYTE_COUNTER, dq::kByteCounterReset);
  s.write(dq::FLOW_SEL, 3);
  s.write(dq::FLOW_SEL, kFlows, true);
  s.expect(dq::FLOW_SEL, 3);
  s.write(dq::FLOW_CTRL, 2);
  s.write(dq::FLOW_CTRL, 5 | dq::FLOW_CTRL_START.mask | dq::FLOW_CTRL_STOP.mask, true);
  s.write(dq::FLOW_CTRL, kFlows | dq::FLOW_CTRL_START.mask, true);
  s.expect(dq::FLOW_CTRL, 2);
  // START of a RUNNING entry: refused, the entry runs on unchanged.
  s.write(dq::FLOW_DST, kPeers.at(0));
  s.write(dq::FLOW_CFG, (4U << dq::FLOW_CFG_PAYLOAD_FLITS.shift) | (3U << dq::FLOW_CFG_PRIO.shift));
  s.write(dq::FLOW_LABEL, 0x123);
  s.write(dq::FLOW_COUNT, 200);
  s.write(dq::FLOW_CTRL, 1 | dq::FLOW_CTRL_START.mask);
  s.write(dq::FLOW_COUNT, 1);
  s.write(dq::FLOW_CTRL, 1 | dq::FLOW_CTRL_START.mask, true);
  s.write(dq::FLOW_SEL, 1);
  s.expect(dq::FLOW_STATUS, static_cast<std::uint32_t>(fmt::FlowState::kRunning));
  co_await run_until(
      s, [&] { return s.apb_idle(); }, 200, "writes");
  co_await run_until(
      s, [&] { return s.dp().flow(1).state == fmt::FlowState::kDone; }, 5000, "flow 1");
  s.expect(dq::FLOW_SENT, 200);
  s.expect(dq::FLOW_STATUS, static_cast<std::uint32_t>(fmt::FlowState::kDone));
  s.expect_counter(dq::Counter::kDataTx, 200);
  s.expect_counter(dq::Counter::kDataTxFlits, 200 * 5);
  read_all(s);
  co_await run_until(
      s, [&] { return s.apb_idle(); }, 500, "reads");
}

// A CNP for no flow (unknown label, unknown source, not for this NIC, or a
// one-flit CNP saying two flits) is counted CNT_CNP_UNKNOWN and changes
// nothing; a CNP of two flits is the barrier engine's CNT_DROP; the flow
// keeps sending and completes; a CNP for it halves its rate (§5).
SYNCFAB_TEST(nic_top_dcqcn, unknown_cnp_counted) {
  auto& dut = ctx.make_dut<Vnic_top>();
  auto& clk = ctx.sim().add_clock("clk", dut.clk_i, kPeriod);
  Cosim s(ctx, dut, clk);
  co_await s.reset();
  s.set_ready_prob(1.0);
  constexpr std::uint32_t kPkts = 60;
  constexpr std::uint32_t kLabel = 0x4242;
  s.nic_write(nic::NODE_LID, kOwnLid);
  s.write(dq::FLOW_DST, kPeers.at(1));
  s.write(dq::FLOW_CFG, (3U << dq::FLOW_CFG_PAYLOAD_FLITS.shift) | (3U << dq::FLOW_CFG_PRIO.shift));
  s.write(dq::FLOW_LABEL, kLabel);
  s.write(dq::FLOW_COUNT, kPkts);
  s.write(dq::FLOW_CTRL, 0 | dq::FLOW_CTRL_START.mask);
  co_await run_until(
      s, [&] { return s.apb_idle(); }, 100, "START");
  auto cnp = [](std::uint16_t dst, std::uint16_t src, std::uint32_t label, unsigned len) {
    fmt::PktHdr h;
    h.set_pkt_type(fmt::PktType::kCnp)
        .set_len_flits(static_cast<std::uint8_t>(len))
        .set_dst_lid(dst)
        .set_src_lid(src)
        .set_flow_label(label);
    return h;
  };
  s.send(packet(cnp(kOwnLid, kPeers.at(1), kLabel + 1, 1), 1));   // unknown label
  s.send(packet(cnp(kOwnLid, kPeers.at(2), kLabel, 1), 1));       // unknown source
  s.send(packet(cnp(kPeers.at(3), kPeers.at(1), kLabel, 1), 1));  // not for this NIC
  s.send(packet(cnp(kOwnLid, kPeers.at(1), kLabel, 2), 1));       // says two flits
  s.send(packet(cnp(kOwnLid, kPeers.at(1), kLabel, 2), 2));       // two flits: CNT_DROP
  co_await run_until(
      s, [&] { return s.rx_idle(); }, 200, "unknown CNPs");
  s.expect_counter(dq::Counter::kCnpUnknown, 4);
  s.expect_counter(dq::Counter::kCnpRx, 0);
  s.queue({nic::CNT_DROP.offset, false, 0, "CNT_DROP", false, 1});
  s.write(dq::FLOW_SEL, 0);
  s.expect(dq::FLOW_RATE, fmt::kRateLine);
  s.expect(dq::FLOW_STATUS, static_cast<std::uint32_t>(fmt::FlowState::kRunning));
  co_await run_until(
      s, [&] { return s.apb_idle(); }, 200, "reads");
  s.send(packet(cnp(kOwnLid, kPeers.at(1), kLabel, 1), 1));  // the flow's
  co_await run_until(
      s, [&] { return s.rx_idle() && s.apb_idle(); }, 200, "known CNP");
  // RC (1 - alpha / 2) with alpha = ALPHA_ONE: half the line.
  s.expect(dq::FLOW_CNP, 1);
  s.expect(dq::FLOW_TARGET, fmt::kRateLine);
  co_await run_until(
      s, [&] { return s.dp().flow(0).state == fmt::FlowState::kDone; }, 20000, "flow 0");
  s.expect(dq::FLOW_SENT, kPkts);
  s.expect_counter(dq::Counter::kDataTx, kPkts);
  s.expect_counter(dq::Counter::kCnpRx, 1);
  s.expect_counter(dq::Counter::kCnpUnknown, 4);
  read_all(s);
  co_await run_until(
      s, [&] { return s.apb_idle(); }, 500, "reads");
}
