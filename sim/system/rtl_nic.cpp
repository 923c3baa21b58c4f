#include "rtl_nic.hpp"

#include <Vnic_top__inputs.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace syncfab::tb::system {

void RtlNicPort::offer(const LinkFlit* flit) {
  if (flit != nullptr) {
    nic_top::drive_flit(dut_.rx_data_i, flit->data);
    dut_.rx_last_i = flit->last ? 1 : 0;
  }
  dut_.rx_valid_i = flit != nullptr ? 1 : 0;
  dut_.tx_ready_i = 1;
}

bool RtlNicPort::taken() const { return dut_.rx_valid_i != 0 && dut_.rx_ready_o != 0; }

std::optional<LinkFlit> RtlNicPort::sent() const {
  if (dut_.tx_valid_o == 0) {
    return std::nullopt;
  }
  return LinkFlit{nic_top::read_flit(dut_.tx_data_o), dut_.tx_last_o != 0};
}

RtlNic::RtlNic(TestContext& ctx, const std::string& name)
    : NicNode(name), ctx_(ctx), node_(ctx, name, knobs_), port_(node_.dut) {
  // A NIC that waits is not evaluated until an input changes (the verilated
  // NIC fabric does the same; --param skip_idle=0 evaluates every edge).
  if (ctx.param("skip_idle", 1) != 0) {
    ctx.skip_when_idle(node_.dut, node_.clk);
  }
}

RtlNic::~RtlNic() {
  node_.nic.reset();
  if (mem_running_) {
    mem_bfm_.cancel();
  }
}

Port& RtlNic::port(unsigned p) {
  if (p != 0) {
    throw std::out_of_range("NIC " + name() + " has one port (0), not " + std::to_string(p));
  }
  return port_;
}

void RtlNic::assert_reset() {
  node_.hold_in_reset();
  node_.dut.tx_ready_i = 1;  // a link never refuses a flit
}

void RtlNic::bring_up(std::uint16_t lid, const driver::NicOptions& opts) {
  if (!mem_running_) {
    mem_bfm_ = ctx_.sim().start_soon(node_.mem.run(), "memory bfm " + name());
    mem_running_ = true;
  }
  node_.open(lid, opts);
}

void RtlNic::shut_down() { node_.nic.reset(); }

driver::Nic& RtlNic::nic() {
  if (!node_.nic) {
    throw std::logic_error("NIC " + name() + ": no driver before bring_up()");
  }
  return *node_.nic;
}

}  // namespace syncfab::tb::system
