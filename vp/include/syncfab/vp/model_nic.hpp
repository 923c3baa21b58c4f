// The golden-model NIC (model::BarrierEngine) as a SystemC module: its CSR
// block behind a TLM-2.0 target socket, its DMA port a TLM-2.0 initiator
// into host memory (MemoryPort), its interrupt line an sc_out<bool>. The
// engine is stepped by the network it sits in (ModelNetwork: one clock of
// the golden network steps every NIC); after each step and each register
// write the module drives irq from the engine's line.
//
// The CSR target takes single 32-bit reads and writes only and refuses the
// rest with the TLM error response (command, burst, byte-enable); an access
// the engine refuses (hw::BusError: unmapped or unaligned offset, a write
// to a read-only register) is TLM_ADDRESS_ERROR_RESPONSE. Each is counted,
// reported as a SystemC warning, and the platform goes on. An access takes
// csr_latency of simulated time (annotated: the initiator's quantum keeper
// accounts for it); its effect on the engine is at the time of the call
// (loosely timed).
#pragma once

#include <cstdint>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <syncfab/model/barrier_engine.hpp>

#include "syncfab/vp/memory_port.hpp"
#include "syncfab/vp/nic_module.hpp"
#include "syncfab/vp/tlm_check.hpp"

namespace syncfab::vp {

class ModelNetwork;

class ModelNicModule final : public sc_core::sc_module, public NicModule {
 public:
  SC_HAS_PROCESS(ModelNicModule);
  ModelNicModule(const sc_core::sc_module_name& name, const sc_core::sc_time& csr_latency);

  tlm_utils::simple_target_socket<ModelNicModule> csr;
  MemoryPort dma;  // bind dma.socket to host memory
  sc_core::sc_out<bool> irq;

  // The engine (built on `dma` by the network) and the network that steps
  // it; before simulation starts.
  void attach(model::BarrierEngine& engine, ModelNetwork& network);
  // After the network stepped the engine: follow its interrupt line.
  void after_step();

  [[nodiscard]] model::BarrierEngine& engine() { return *engine_; }

  [[nodiscard]] NicKind nic_kind() const noexcept override { return NicKind::kModel; }
  [[nodiscard]] tlm::tlm_target_socket<>& csr_target() override { return csr; }
  [[nodiscard]] MemoryPort& dma_port() override { return dma; }
  [[nodiscard]] sc_core::sc_out<bool>& irq_out() override { return irq; }
  [[nodiscard]] const TlmErrorCounts& errors() const noexcept override { return errors_; }
  [[nodiscard]] std::uint64_t csr_accesses() const noexcept override { return accesses_; }
  [[nodiscard]] std::vector<model::CompletionRecord> completions() const override {
    return engine_->completions();
  }
  [[nodiscard]] const std::uint64_t& traced_accesses() const noexcept override { return accesses_; }
  [[nodiscard]] const std::uint32_t& traced_offset() const noexcept override {
    return last_offset_;
  }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void drive_irq();

  sc_core::sc_time csr_latency_;
  model::BarrierEngine* engine_ = nullptr;
  ModelNetwork* network_ = nullptr;
  sc_core::sc_event irq_changed_;
  bool irq_driven_ = false;  // what drive_irq() last wrote
  TlmErrorCounts errors_;
  std::uint64_t accesses_ = 0;
  std::uint32_t last_offset_ = 0;
};

}  // namespace syncfab::vp
