// RtlSwitch's members, for the files that instantiate it (rtl_switch8.cpp,
// rtl_switch16.cpp), after they include the model's header and its
// <class>__inputs.hpp. The pins are as wide as the model's ports: one bit
// (rx_valid_i, ...) or kFlitWords words (rx_data_i, ...) per port.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "nic_top_bench.hpp"
#include "rtl_switch.hpp"
#include "switch_probe_ports.hpp"

namespace syncfab::tb::system {

namespace rtl_switch_detail {

// One system clock: the switches tick with the NICs.
static_assert(swfab::kPeriod == nic_top::kPeriod, "NICs and switches share one clock period");

// Port p's flit is words kFlitWords*p .. of the flat rx/tx vectors.
constexpr std::size_t kFlitWords = kFlitBytes / 4;

template <class Wide>
auto* port_words(Wide& w, unsigned p) {
  return w.data() + kFlitWords * p;
}

}  // namespace rtl_switch_detail

template <class Dut>
void RtlSwitchPort<Dut>::offer(const LinkFlit* flit) {
  using rtl_switch_detail::kFlitWords;
  using rtl_switch_detail::port_words;
  using Mask = std::remove_cvref_t<decltype(dut_.rx_valid_i)>;
  const auto bit = static_cast<Mask>(1U << index_);
  if (flit != nullptr) {
    VlWide<4> one;
    nic_top::drive_flit(one, flit->data);
    std::copy_n(one.data(), kFlitWords, port_words(dut_.rx_data_i, index_));
    dut_.rx_valid_i = static_cast<Mask>(dut_.rx_valid_i | bit);
    dut_.rx_last_i =
        static_cast<Mask>(flit->last ? (dut_.rx_last_i | bit) : (dut_.rx_last_i & ~bit));
  } else {
    dut_.rx_valid_i = static_cast<Mask>(dut_.rx_valid_i & ~bit);
  }
}

template <class Dut>
bool RtlSwitchPort<Dut>::taken() const {
  return ((dut_.rx_valid_i & dut_.rx_ready_o) >> index_ & 1U) != 0;
}

template <class Dut>
std::optional<LinkFlit> RtlSwitchPort<Dut>::sent() const {
  using rtl_switch_detail::kFlitWords;
  using rtl_switch_detail::port_words;
  if ((dut_.tx_valid_o >> index_ & 1U) == 0) {
    return std::nullopt;
  }
  VlWide<4> one;
  std::copy_n(port_words(dut_.tx_data_o, index_), kFlitWords, one.data());
  return LinkFlit{nic_top::read_flit(one), (dut_.tx_last_o >> index_ & 1U) != 0};
}

template <class Dut>
RtlSwitch<Dut>::RtlSwitch(TestContext& ctx, const std::string& name)
    : SwitchNode(name),
      dut_(ctx.make_dut<Dut>(name)),
      clk_(ctx.sim().add_clock("clk_" + name, dut_.clk_i, nic_top::kPeriod)),
      apb_(clk_, apb_pins_of(dut_, swfab::kCsrWindow)),
      memory_(0x8000'0000, 4096),
      dev_(
          ctx.sim(), clk_, apb_, [this] { return dut_.intr_o != 0; }, memory_, swfab::kCsrWindow),
      probe_(swfab::probe_ports_of<kPorts>(*dut_.rootp)) {
  for (unsigned p = 0; p < kPorts; ++p) {
    ports_[p] = std::make_unique<RtlSwitchPort<Dut>>(dut_, p);
  }
  // A switch with nothing to forward and no bus transfer is not evaluated
  // until an input changes: while the switches are programmed one after
  // the other, only the one on the bus runs (--param skip_idle=0 evaluates
  // every edge).
  if (ctx.param("skip_idle", 1) != 0) {
    ctx.skip_when_idle(dut_, clk_);
  }
}

// Reset asserted, rx idle, tx_ready high on every port (a link never refuses
// a flit); the APB master idle.
template <class Dut>
void RtlSwitch<Dut>::assert_reset() {
  using Mask = std::remove_cvref_t<decltype(dut_.tx_ready_i)>;
  apb_.idle();
  dut_.rst_ni = 0;
  dut_.pprot_i = 0;
  dut_.rx_valid_i = 0;
  dut_.rx_last_i = 0;
  dut_.tx_ready_i = static_cast<Mask>((1UL << kPorts) - 1);
}

template <class Dut>
void RtlSwitch<Dut>::release_reset() {
  dut_.rst_ni = 1;
}

template <class Dut>
SwitchShape RtlSwitch<Dut>::shape() const {
  return {kPorts, swfab::kLftEntries, swfab::kMftEntries};
}

template <class Dut>
void RtlSwitch<Dut>::bring_up() {
  drv_ = std::make_unique<driver::Switch>(dev_);
  check_hw_cfg(*this, drv_->info(), RtlSwitchShape<Dut>::kLibrary);
}

template <class Dut>
driver::Switch& RtlSwitch<Dut>::driver() {
  if (!drv_) {
    throw std::logic_error("switch " + name() + ": no driver before bring_up()");
  }
  return *drv_;
}

template <class Dut>
std::uint32_t RtlSwitch<Dut>::counter(unsigned port, unsigned prio, fmt::SwCounter kind) const {
  return probe_.at(port).counter(prio, static_cast<unsigned>(kind));
}

template <class Dut>
std::uint32_t RtlSwitch<Dut>::ingress_cells(unsigned port, unsigned prio) const {
  return probe_.at(port).occupancy(prio);
}

}  // namespace syncfab::tb::system
