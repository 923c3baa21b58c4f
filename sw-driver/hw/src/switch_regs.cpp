#include "syncfab/hw/switch_regs.hpp"

namespace syncfab::hw::switch_regs {

Reg port_reg(unsigned port, PortReg which, unsigned index) {
  using P = switch_csr__PORTx__stride80_t;
  struct Where {
    std::size_t offset;
    unsigned count;
    const char* name;
  };
  const Where w = [which]() -> Where {
    switch (which) {
      case PortReg::kPfcEn:
        return {offsetof(P, PFC_EN), 1, "PFC_EN"};
      case PortReg::kSched:
        return {offsetof(P, SCHED), 1, "SCHED"};
      case PortReg::kWdCtrl:
        return {offsetof(P, WD_CTRL), 1, "WD_CTRL"};
      case PortReg::kWredEn:
        return {offsetof(P, WRED_EN), 1, "WRED_EN"};
      case PortReg::kWeight:
        return {offsetof(P, WEIGHT), sizeof(P::WEIGHT) / 4, "WEIGHT"};
      case PortReg::kPfcThr:
        return {offsetof(P, PFC_THR), sizeof(P::PFC_THR) / 4, "PFC_THR"};
      case PortReg::kQuanta:
        return {offsetof(P, QUANTA), sizeof(P::QUANTA) / 4, "QUANTA"};
      case PortReg::kWredK:
        return {offsetof(P, WRED_K), sizeof(P::WRED_K) / 4, "WRED_K"};
      case PortReg::kWredP:
        return {offsetof(P, WRED_P), sizeof(P::WRED_P) / 4, "WRED_P"};
      case PortReg::kLossyLimit:
        return {offsetof(P, LOSSY_LIMIT), 1, "LOSSY_LIMIT"};
    }
    throw std::logic_error("unknown port register");
  }();
  if (port >= kMaxPorts) {
    throw std::out_of_range("port " + std::to_string(port) + " is outside the register map (" +
                            std::to_string(kMaxPorts) + " ports)");
  }
  if (index >= w.count) {
    throw std::out_of_range(std::string("PORT[].") + w.name + " index " + std::to_string(index) +
                            " (" + std::to_string(w.count) + " registers)");
  }
  return Reg{
      static_cast<std::uint32_t>(offsetof(switch_csr_t, PORT) + std::size_t{port} * sizeof(P) +
                                 w.offset + std::size_t{4} * index),
      w.name};
}

}  // namespace syncfab::hw::switch_regs
