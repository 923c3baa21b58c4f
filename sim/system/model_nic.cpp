#include "model_nic.hpp"

#include <cstddef>
#include <stdexcept>

#include "syncfab/regs/nic_csr.h"

namespace syncfab::tb::system {

namespace {

// The verilated nic_top's shape (rtl/nic/CMakeLists.txt, vl_nic_top:
// NumCtx=4 ReqDamqSlots=4 RespDamqSlots=2 HdqDepth=2); the engine's own
// latencies (descriptor fetch, completion writes) stay the model's.
model::EngineConfig engine_config(bool data_path) {
  model::EngineConfig c;
  c.data_path = data_path;
  c.num_ctx = nic_top::kNumCtx;
  c.hdq_depth = 2;
  c.req_damq_entries = 4;
  c.resp_queue_depth = 2;
  return c;
}

}  // namespace

void ModelNicPort::offer(const LinkFlit* flit) {
  in_.rx.reset();
  if (flit != nullptr) {
    in_.rx = model::LinkFlit{flit->data, flit->last};
  }
  in_.tx_ready = true;  // a link never refuses a flit
}

std::optional<LinkFlit> ModelNicPort::sent() const {
  if (!out_.tx_flit) {
    return std::nullopt;
  }
  return LinkFlit{out_.tx_flit->data, out_.tx_flit->last};
}

ModelNic::ModelNic(TestContext& ctx, const std::string& name, bool data_path)
    : NicNode(name),
      ctx_(ctx),
      clock_(ctx.sim(), name),
      memory_(nic_top::kMemBase, nic_top::kMemBytes),
      engine_(engine_config(data_path), memory_),
      dev_(
          engine_, memory_, [this] { clock_.advance(ctx_.sim()); },
          static_cast<std::uint64_t>(nic_top::kPeriod / 1000)) {}

ModelNic::~ModelNic() { nic_.reset(); }

Port& ModelNic::port(unsigned p) {
  if (p != 0) {
    throw std::out_of_range("NIC " + name() + " has one port (0), not " + std::to_string(p));
  }
  return port_;
}

void ModelNic::settle(std::uint64_t /*cycle*/) {
  const std::uint64_t now = clock_.clk().cycles();
  if (!offset_) {
    offset_ = now - engine_.cycle();
  }
  if (now - *offset_ != engine_.cycle()) {
    throw std::logic_error("NIC " + name() + ": engine at cycle " +
                           std::to_string(engine_.cycle()) + ", the clock at " +
                           std::to_string(now - *offset_) + " (one step per clock)");
  }
  port_.set_out(engine_.step(port_.in()));
  const auto& done = engine_.completions();
  for (std::size_t i = cq_.size(); i < done.size(); ++i) {
    cq_.push_back(nic_top::CqWrite{done[i].cycle + *offset_, done[i].ctx, done[i].epoch,
                                   static_cast<unsigned>(done[i].status),
                                   static_cast<unsigned>(done[i].err)});
  }
}

void ModelNic::bring_up(std::uint16_t lid, const driver::NicOptions& opts) {
  dev_.write32(static_cast<std::uint32_t>(offsetof(nic_csr_t, NODE_LID)), lid);
  nic_ = std::make_unique<driver::Nic>(dev_, memory_, opts);
}

driver::Nic& ModelNic::nic() {
  if (!nic_) {
    throw std::logic_error("NIC " + name() + ": no driver before bring_up()");
  }
  return *nic_;
}

}  // namespace syncfab::tb::system
