#include "nic_fabric.hpp"

#include <Vnic_top__inputs.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "syncfab/hw/nic_regs.hpp"
#include "syncfab/regs/nic_csr.h"

namespace syncfab::tb::fabric {

using fmt::PktHdr;
using fmt::PktType;

// ----------------------------------------------------------------- network
std::uint64_t Network::route(unsigned a, unsigned b, std::uint64_t cycle) {
  const std::vector<unsigned> path = torus_.route(a, b);
  std::uint64_t t = cycle;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    std::set<std::uint64_t>& busy = link_busy_[{path[i], path[i + 1]}];
    // Routes are made in cycle order and depart no earlier: older entries
    // can never be asked for again.
    busy.erase(busy.begin(), busy.lower_bound(cycle));
    std::uint64_t depart = t;
    while (busy.contains(depart)) {
      ++depart;  // one header per cycle per directed link
    }
    busy.insert(depart);
    t = depart + hop_;
  }
  return t;
}

bool Network::idle() const {
  for (std::size_t i = 0; i < duts_.size(); ++i) {
    if (busy_[i] || !inbound_[i].empty() || !nodes_pfc_[i].frame.empty()) {
      return false;
    }
  }
  return true;
}

void Network::start_pauses(const PauseSpec& spec) {
  spec_ = spec;
  pause_rng_.seed(spec.seed);
  pauses_on_ = true;
  pauses_used_ = true;
}

void Network::draw_pause(unsigned i, std::uint64_t now) {
  NodePfc& np = nodes_pfc_[i];
  const bool paused = now <= np.paused_to;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (u(pause_rng_) >= spec_.rate || (!paused && now < np.quiet_until)) {
    return;
  }
  const auto tc_bit = static_cast<std::uint8_t>(1U << nic_top::kTcReset);
  const auto others = static_cast<std::uint8_t>(pause_rng_() & ~tc_bit & 0xFFU);
  std::uniform_int_distribution<unsigned> quanta(1, spec_.max_quanta);
  fmt::PfcFrame f;
  f.set_pkt_type(PktType::kPfc).set_len_flits(2);
  if (paused) {
    if (u(pause_rng_) >= spec_.resume) {
      return;
    }
    f.set_class_enable(tc_bit);  // a resume: quanta 0
  } else if (u(pause_rng_) < spec_.other_prio) {
    if (others == 0) {
      return;
    }
    f.set_class_enable(others);
  } else {
    f.set_class_enable(static_cast<std::uint8_t>(tc_bit | others));
  }
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    if (p != nic_top::kTcReset || !paused) {
      f.set_quanta(p, static_cast<std::uint16_t>(quanta(pause_rng_)));
    }
  }
  np.fields = f;
  np.frame = nic_top::pfc_packet(f);
  np.next = 0;
}

void Network::pause_taken(unsigned i, std::uint64_t now) {
  NodePfc& np = nodes_pfc_[i];
  PfcCounts& c = pfc_counts_[i];
  ++c.frames;
  if (((np.fields.class_enable() >> nic_top::kTcReset) & 1U) != 0) {
    const std::uint64_t q = np.fields.quanta(nic_top::kTcReset);
    // pfc_rx: paused from the edge that ends this cycle, for q x cpq cycles;
    // a resume ends a pause at that edge (docs/switch-pfc.md).
    if (now < np.paused_to) {
      c.paused_cycles -= np.paused_to - now;
    }
    if (q != 0) {
      ++c.pauses;
      np.paused_from = now + 1;
      np.paused_to = now + q * nic_top::kCpqReset;
      c.paused_cycles += q * nic_top::kCpqReset;
    } else {
      np.paused_to = std::min(np.paused_to, now);
    }
    np.quiet_until = np.paused_to + 1 + spec_.max_pause();
  }
  np.frame.clear();
}

Task<> Network::run() {
  if (clk_.sim().in_readonly()) {
    co_await RisingEdge(clk_);
  }
  const std::size_t n = duts_.size();
  for (;;) {
    const std::uint64_t now = clk_.cycles();
    for (std::size_t i = 0; i < n; ++i) {
      Vnic_top& d = *duts_[i];
      auto& q = inbound_[i];
      NodePfc& np = nodes_pfc_[i];
      if (pauses_on_ && np.frame.empty()) {
        draw_pause(static_cast<unsigned>(i), now);
      }
      // A PFC frame goes between packets, its two flits back to back.
      if (!busy_[i] && !np.frame.empty()) {
        nic_top::drive_flit(d.rx_data_i, np.frame[np.next]);
        d.rx_last_i = np.next + 1 == np.frame.size();
        busy_[i] = true;
        rx_pfc_[i] = true;
      } else if (!busy_[i] && !q.empty() && q.begin()->first <= now) {
        nic_top::drive_hdr(d.rx_data_i, q.begin()->second);
        d.rx_last_i = 1;
        busy_[i] = true;
        rx_pfc_[i] = false;
      }
      d.rx_valid_i = busy_[i];
      d.tx_ready_i = 1;
    }
    co_await ReadOnly();
    for (std::size_t i = 0; i < n; ++i) {
      Vnic_top& d = *duts_[i];
      if (busy_[i]) {
        if (d.rx_ready_o != 0) {
          busy_[i] = false;
          if (!rx_pfc_[i]) {
            inbound_[i].erase(inbound_[i].begin());
          } else if (++nodes_pfc_[i].next == nodes_pfc_[i].frame.size()) {
            pause_taken(static_cast<unsigned>(i), now);
          }
        } else if (!rx_pfc_[i]) {
          ++stats_.rx_stall_cycles;
        }
      }
      if (d.tx_valid_o != 0) {
        const PktHdr h = nic_top::decode_hdr(d.tx_data_o);
        const NodePfc& np = nodes_pfc_[i];
        TB_CHECK(d.tx_last_o != 0) << "node " << i << ": every packet is one flit (tx_last_o)";
        TB_CHECK_EQ(h.prio(), nic_top::kTcReset) << "node " << i << ": prio = NET_CFG.TC";
        // Every header shown is taken at once (tx_ready_i = 1): each is a
        // packet starting, which a pause of NET_CFG.TC forbids.
        TB_CHECK(now < np.paused_from || now > np.paused_to)
            << "node " << i << " started a packet in cycle " << now << ", paused in cycles "
            << np.paused_from << " .. " << np.paused_to;
        TB_CHECK_EQ(h.src_lid(), lid_of(static_cast<unsigned>(i))) << "src_lid = NODE_LID";
        TB_CHECK(h.dst_lid() >= 1 && h.dst_lid() <= n && h.dst_lid() != lid_of(i))
            << "node " << i << " sent to LID 0x" << std::hex << h.dst_lid()
            << ", not another node of the fabric";
        switch (h.pkt_type()) {
          case PktType::kNotify:
            ++stats_.notifies;
            break;
          case PktType::kAck:
            ++stats_.acks;
            break;
          case PktType::kNack:
            ++stats_.nacks;
            break;
          default:
            TB_CHECK(false) << "node " << i << " sent packet type "
                            << static_cast<unsigned>(h.pkt_type());
        }
        const unsigned dst = h.dst_lid() - 1U;
        // Leaves tx at the edge that follows: counts from now + 1.
        auto& q = inbound_[dst];
        q.emplace(route(static_cast<unsigned>(i), dst, now + 1), h);
        stats_.max_rx_queue = std::max<std::uint64_t>(stats_.max_rx_queue, q.size());
      }
    }
    co_await RisingEdge(clk_);
  }
}

// ------------------------------------------------------------------- nodes

std::uint32_t DoorbellGate::read32(std::uint32_t offset) {
  namespace nic = hw::nic;
  // The queue state would not include the held posts: the driver would
  // overfill the queue.
  TB_CHECK(held_.empty() || (offset != nic::HDQ_POST.offset && offset != nic::SDQ_CONS.offset))
      << "the driver reads queue state while " << held_.size()
      << " doorbell write(s) are held (too many posts for a common start)";
  return dev_.read32(offset);
}

void DoorbellGate::write32(std::uint32_t offset, std::uint32_t value) {
  namespace nic = hw::nic;
  if (holding_ && (offset == nic::HDQ_POST.offset || offset == nic::SDQ_PROD.offset)) {
    held_.emplace_back(offset, value);
    return;
  }
  dev_.write32(offset, value);
}

bool DoorbellGate::wait_interrupt(std::chrono::nanoseconds timeout) {
  TB_CHECK(held_.empty()) << "the driver waits for its device while " << held_.size()
                          << " doorbell write(s) are held (queue full during a common start?)";
  return dev_.wait_interrupt(timeout);
}

Task<> DoorbellGate::release() {
  holding_ = false;
  const auto writes = std::exchange(held_, {});
  for (const auto& [offset, value] : writes) {
    const ApbResult r = co_await apb_.write(offset, value);
    TB_CHECK(!r.error) << "held doorbell write of 0x" << std::hex << value << " at offset 0x"
                       << offset << ": PSLVERR";
  }
}

Node::Node(TestContext& ctx, unsigned index, const nic_top::Knobs& knobs)
    : Node(ctx, "nic" + std::to_string(index), "clk" + std::to_string(index), knobs) {}

Node::Node(TestContext& ctx, const std::string& name, const nic_top::Knobs& knobs)
    : Node(ctx, name, "clk_" + name, knobs) {}

Node::Node(TestContext& ctx, const std::string& name, const std::string& clock,
           const nic_top::Knobs& knobs)
    : dut(ctx.make_dut<Vnic_top>(name)),
      clk(ctx.sim().add_clock(clock, dut.clk_i, nic_top::kPeriod)),
      apb(clk, apb_pins_of(dut, nic_top::kCsrWindow)),
      memory(nic_top::kMemBase, nic_top::kMemBytes),
      mem(dut, clk, ctx.rng(), memory, knobs),
      dev(
          ctx.sim(), clk, apb, [this] { return dut.intr_o != 0; }, memory, nic_top::kCsrWindow),
      gate(dev, apb) {}

void Node::hold_in_reset() { nic_top::hold_in_reset(dut, apb); }

void Node::open(std::uint16_t lid, const driver::NicOptions& opts) {
  dev.write32(static_cast<std::uint32_t>(offsetof(nic_csr_t, NODE_LID)), lid);
  nic = std::make_unique<driver::Nic>(gate, memory, opts);
  const std::uint64_t base =
      (static_cast<std::uint64_t>(dev.read32(offsetof(nic_csr_t, CQ_BASE_HI))) << 32U) |
      dev.read32(offsetof(nic_csr_t, CQ_BASE_LO));
  mem.watch_cq(base, dev.read32(offsetof(nic_csr_t, CQ_SIZE)));
}

Fabric::Fabric(TestContext& ctx, unsigned x, unsigned y, unsigned z, unsigned hop_latency)
    : ctx_(ctx), torus_(x, y, z) {
  std::vector<Vnic_top*> duts;
  // A NIC that waits (most of them, most of the time: bring-up and posts
  // go one node at a time) is not evaluated until an input changes
  // (syncfab/tb/idle_skip.hpp); --param skip_idle=0 evaluates every NIC at
  // every edge, with the same results (the skip_idle_equivalence test).
  const bool skip_idle = ctx.param("skip_idle", 1) != 0;
  for (unsigned i = 0; i < torus_.nodes(); ++i) {
    nodes_.push_back(std::make_unique<Node>(ctx, i, knobs_));
    duts.push_back(&nodes_.back()->dut);
    if (skip_idle) {
      ctx.skip_when_idle(nodes_.back()->dut, nodes_.back()->clk);
    }
  }
  net_ = std::make_unique<Network>(torus_, hop_latency, std::move(duts), clk());
}

Fabric::~Fabric() {
  for (auto& n : nodes_) {
    n->nic.reset();
  }
  for (auto& h : bfms_) {
    h.cancel();
  }
}

Task<> Fabric::reset() {
  for (auto& n : nodes_) {
    n->hold_in_reset();
  }
  co_await ClockCycles(clk(), 3);
  for (auto& n : nodes_) {
    n->dut.rst_ni = 1;
  }
  co_await RisingEdge(clk());
}

void Fabric::bring_up(const driver::NicOptions& opts) {
  for (auto& n : nodes_) {
    bfms_.push_back(ctx_.sim().start_soon(n->mem.run(), "memory bfm"));
  }
  bfms_.push_back(ctx_.sim().start_soon(net_->run(), "torus"));
  for (unsigned i = 0; i < size(); ++i) {
    nodes_[i]->open(lid_of(i), opts);
  }
}

void Fabric::idle_cycles(std::uint64_t n) {
  ctx_.sim().run([](Clock& c, std::uint64_t k) -> Task<> { co_await ClockCycles(c, k); }(clk(), n),
                 "idle");
}

void Fabric::hold_doorbells() {
  for (auto& n : nodes_) {
    n->gate.hold();
  }
}

std::uint64_t Fabric::release_doorbells() {
  return ctx_.sim().run(
      [](Fabric& f) -> Task<std::uint64_t> {
        // From just after an edge, every APB master drives its setup phase in
        // this same step: the doorbells all complete at the same edge.
        co_await RisingEdge(f.clk());
        const std::uint64_t at = f.clk().cycles();
        std::vector<TaskHandle> writes;
        for (auto& n : f.nodes_) {
          if (n->gate.holding() || n->gate.held() != 0) {
            writes.push_back(f.ctx_.sim().start_soon(n->gate.release(), "held doorbells"));
          }
        }
        for (auto& w : writes) {
          co_await w;
        }
        co_return at;
      }(*this),
      "release doorbells");
}

}  // namespace syncfab::tb::fabric
