#include <cstddef>

#include "syncfab/hw/switch_regs.hpp"
#include "syncfab/model/switch_model_config.hpp"
#include "syncfab/regs/switch_csr.h"

namespace syncfab::model {

namespace {

std::uint32_t field(std::uint32_t v, std::uint32_t mask, unsigned shift) {
  return (v & mask) >> shift;
}

using PortRegs = switch_csr__PORTx__stride80_t;

std::uint32_t port_off(unsigned port, std::size_t member) {
  return static_cast<std::uint32_t>(offsetof(switch_csr_t, PORT) + port * sizeof(PortRegs) +
                                    member);
}

}  // namespace

#define SW_FIELD(V, R, F) field(V, SWITCH_CSR__##R##__##F##_bm, SWITCH_CSR__##R##__##F##_bp)
#define SW_OFF(R) static_cast<std::uint32_t>(offsetof(switch_csr_t, R))

SwitchConfig read_switch_config(const SwitchCsrModel& csr, unsigned ports) {
  SwitchConfig c;
  read_switch_config(csr, ports, c);
  return c;
}

void read_switch_config(const SwitchCsrModel& csr, unsigned ports, SwitchConfig& c) {
  c.enable = SW_FIELD(csr.reg(SW_OFF(CTRL)), CTRL, ENABLE) != 0;
  const std::uint32_t timing = csr.reg(SW_OFF(PFC_TIMING));
  c.cyc_per_quantum = SW_FIELD(timing, PFC_TIMING, CYC_PER_QUANTUM);
  c.refresh = SW_FIELD(timing, PFC_TIMING, REFRESH);
  c.wd_detect = SW_FIELD(csr.reg(SW_OFF(WD_DETECT_TIME)), WD_DETECT_TIME, CYCLES);
  c.wd_recover = SW_FIELD(csr.reg(SW_OFF(WD_RECOVER_TIME)), WD_RECOVER_TIME, CYCLES);
  c.wd_window = SW_FIELD(csr.reg(SW_OFF(WD_WINDOW)), WD_WINDOW, CYCLES);
  c.wd_limit = SW_FIELD(csr.reg(SW_OFF(WD_LIMIT)), WD_LIMIT, LIMIT);
  const std::uint32_t rc = csr.reg(SW_OFF(REMAP_CTRL));
  c.remap_enable = SW_FIELD(rc, REMAP_CTRL, ENABLE) != 0;
  c.uplink_mask = static_cast<std::uint8_t>(SW_FIELD(rc, REMAP_CTRL, UPLINK_MASK));
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    const std::uint32_t r = csr.reg(SW_OFF(REMAP) + 4 * p);
    c.remap_prio[p] = static_cast<std::uint8_t>(SW_FIELD(r, REMAPX, NEW_PRIO));
    c.remap_dscp[p] = static_cast<std::uint8_t>(SW_FIELD(r, REMAPX, NEW_DSCP));
  }
  c.port.resize(ports);
  for (unsigned o = 0; o < ports; ++o) {
    SwitchPortConfig& pc = c.port[o];
    const auto rd = [&](std::size_t member) { return csr.reg(port_off(o, member)); };
    pc.pfc_en =
        static_cast<std::uint8_t>(SW_FIELD(rd(offsetof(PortRegs, PFC_EN)), PORTX__PFC_EN, MASK));
    pc.sp_mask =
        static_cast<std::uint8_t>(SW_FIELD(rd(offsetof(PortRegs, SCHED)), PORTX__SCHED, SP_MASK));
    const std::uint32_t wd = rd(offsetof(PortRegs, WD_CTRL));
    pc.wd_enable = static_cast<std::uint8_t>(SW_FIELD(wd, PORTX__WD_CTRL, ENABLE));
    pc.wd_drop_mode = SW_FIELD(wd, PORTX__WD_CTRL, DROP_MODE) != 0;
    pc.wred_en =
        static_cast<std::uint8_t>(SW_FIELD(rd(offsetof(PortRegs, WRED_EN)), PORTX__WRED_EN, MASK));
    pc.lossy_limit = SW_FIELD(rd(offsetof(PortRegs, LOSSY_LIMIT)), PORTX__LOSSY_LIMIT, LIMIT);
    for (std::size_t i = 0; i < fmt::kNumPrio / 2; ++i) {
      const std::uint32_t w = rd(offsetof(PortRegs, WEIGHT) + 4 * i);
      pc.weight[2 * i] = SW_FIELD(w, PORTX__WEIGHTX, W_EVEN);
      pc.weight[2 * i + 1] = SW_FIELD(w, PORTX__WEIGHTX, W_ODD);
      const std::uint32_t q = rd(offsetof(PortRegs, QUANTA) + 4 * i);
      pc.quanta[2 * i] = static_cast<std::uint16_t>(SW_FIELD(q, PORTX__QUANTAX, Q_EVEN));
      pc.quanta[2 * i + 1] = static_cast<std::uint16_t>(SW_FIELD(q, PORTX__QUANTAX, Q_ODD));
    }
    for (std::size_t p = 0; p < fmt::kNumPrio; ++p) {
      const std::uint32_t thr = rd(offsetof(PortRegs, PFC_THR) + 4 * p);
      pc.xoff[p] = SW_FIELD(thr, PORTX__PFC_THRX, XOFF);
      pc.xon[p] = SW_FIELD(thr, PORTX__PFC_THRX, XON);
      const std::uint32_t k = rd(offsetof(PortRegs, WRED_K) + 4 * p);
      const auto& pmax = hw::switch_regs::kWredPmax;
      const std::uint32_t pm = rd(offsetof(PortRegs, WRED_P) + 4 * (p / pmax.size()));
      pc.wred[p] = WredConfig{((pc.wred_en >> p) & 1U) != 0, SW_FIELD(k, PORTX__WRED_KX, KMIN),
                              SW_FIELD(k, PORTX__WRED_KX, KMAX), pmax[p % pmax.size()].get(pm)};
    }
  }
}

EcnDynConfig read_ecn_dyn_config(const SwitchCsrModel& csr) {
  return EcnDynConfig::from_words(csr.reg(SW_OFF(ECN_DYN_CTRL)), csr.reg(SW_OFF(ECN_DYN_TARGET)),
                                  csr.reg(SW_OFF(ECN_DYN_PMAX)));
}

void write_ecn_dyn_config(SwitchCsrModel& csr, const EcnDynConfig& cfg) {
  csr.write32(SW_OFF(ECN_DYN_CTRL), cfg.ctrl_word());
  csr.write32(SW_OFF(ECN_DYN_TARGET), cfg.target_word());
  csr.write32(SW_OFF(ECN_DYN_PMAX), cfg.pmax_word());
}

#undef SW_FIELD
#undef SW_OFF

}  // namespace syncfab::model
