#include "rtl_switch.hpp"

#include <Vswitch_top__inputs.hpp>

#include <algorithm>
#include <stdexcept>

#include "nic_top_bench.hpp"

namespace syncfab::tb::system {

namespace {

// One system clock: the switches tick with the NICs.
static_assert(swfab::kPeriod == nic_top::kPeriod, "NICs and switches share one clock period");

// Port p's flit is words kFlitWords*p .. of the flat rx/tx vectors.
constexpr std::size_t kFlitWords = kFlitBytes / 4;

std::uint32_t* port_words(VlWide<32>& w, unsigned p) { return w.data() + kFlitWords * p; }

}  // namespace

void RtlSwitchPort::offer(const LinkFlit* flit) {
  const auto bit = static_cast<std::uint8_t>(1U << index_);
  if (flit != nullptr) {
    VlWide<4> one;
    nic_top::drive_flit(one, flit->data);
    std::copy_n(one.data(), kFlitWords, port_words(dut_.rx_data_i, index_));
    dut_.rx_valid_i = static_cast<std::uint8_t>(dut_.rx_valid_i | bit);
    dut_.rx_last_i =
        static_cast<std::uint8_t>(flit->last ? (dut_.rx_last_i | bit) : (dut_.rx_last_i & ~bit));
  } else {
    dut_.rx_valid_i = static_cast<std::uint8_t>(dut_.rx_valid_i & ~bit);
  }
}

bool RtlSwitchPort::taken() const {
  return ((dut_.rx_valid_i & dut_.rx_ready_o) >> index_ & 1U) != 0;
}

std::optional<LinkFlit> RtlSwitchPort::sent() const {
  if ((dut_.tx_valid_o >> index_ & 1U) == 0) {
    return std::nullopt;
  }
  VlWide<4> one;
  std::copy_n(port_words(dut_.tx_data_o, index_), kFlitWords, one.data());
  return LinkFlit{nic_top::read_flit(one), (dut_.tx_last_o >> index_ & 1U) != 0};
}

RtlSwitch::RtlSwitch(TestContext& ctx, const std::string& name)
    : SwitchNode(name),
      dut_(ctx.make_dut<Vswitch_top>(name)),
      clk_(ctx.sim().add_clock("clk_" + name, dut_.clk_i, nic_top::kPeriod)),
      apb_(clk_, apb_pins_of(dut_, swfab::kCsrWindow)),
      memory_(0x8000'0000, 4096),
      dev_(
          ctx.sim(), clk_, apb_, [this] { return dut_.intr_o != 0; }, memory_, swfab::kCsrWindow),
      probe_(swfab::probe_ports(dut_)) {
  for (unsigned p = 0; p < swfab::kPorts; ++p) {
    ports_[p] = std::make_unique<RtlSwitchPort>(dut_, p);
  }
  // A switch with nothing to forward and no bus transfer is not evaluated
  // until an input changes: while the switches are programmed one after
  // the other, only the one on the bus runs (--param skip_idle=0 evaluates
  // every edge).
  if (ctx.param("skip_idle", 1) != 0) {
    ctx.skip_when_idle(dut_, clk_);
  }
}

void RtlSwitch::assert_reset() {
  apb_.idle();
  swfab::hold_in_reset(dut_);
}

SwitchShape RtlSwitch::shape() const {
  return {swfab::kPorts, swfab::kLftEntries, swfab::kMftEntries};
}

void RtlSwitch::bring_up() {
  drv_ = std::make_unique<driver::Switch>(dev_);
  check_hw_cfg(*this, drv_->info(), "vl_switch_top8");
}

driver::Switch& RtlSwitch::driver() {
  if (!drv_) {
    throw std::logic_error("switch " + name() + ": no driver before bring_up()");
  }
  return *drv_;
}

std::uint32_t RtlSwitch::counter(unsigned port, unsigned prio, fmt::SwCounter kind) const {
  return probe_.at(port).counter(prio, static_cast<unsigned>(kind));
}

}  // namespace syncfab::tb::system
