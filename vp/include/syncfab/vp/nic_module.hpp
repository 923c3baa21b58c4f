// What the platform sees of a node's NIC, whichever it is (the golden model,
// ModelNicModule, or the verilated RTL, RtlNicModule): a CSR target socket,
// a DMA initiator into host memory, an interrupt line, the count of the TLM
// transactions it refused, and the completions it wrote.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>

#include <syncfab/model/barrier_engine.hpp>

#include "syncfab/vp/memory_port.hpp"
#include "syncfab/vp/tlm_check.hpp"

namespace syncfab::vp {

enum class NicKind : std::uint8_t { kModel, kRtl };

class NicModule {
 public:
  NicModule() = default;
  NicModule(const NicModule&) = delete;
  NicModule& operator=(const NicModule&) = delete;
  NicModule(NicModule&&) = delete;
  NicModule& operator=(NicModule&&) = delete;
  virtual ~NicModule() = default;

  [[nodiscard]] virtual NicKind nic_kind() const noexcept = 0;
  [[nodiscard]] virtual tlm::tlm_target_socket<>& csr_target() = 0;
  [[nodiscard]] virtual MemoryPort& dma_port() = 0;
  [[nodiscard]] virtual sc_core::sc_out<bool>& irq_out() = 0;
  [[nodiscard]] virtual const TlmErrorCounts& errors() const noexcept = 0;
  [[nodiscard]] virtual std::uint64_t csr_accesses() const noexcept = 0;
  // Every completion the NIC produced, oldest first, with the clock cycle
  // it was written in (ctx, epoch, status, cycle).
  [[nodiscard]] virtual std::vector<model::CompletionRecord> completions() const = 0;
  // What a trace file samples: the access count and the last offset.
  [[nodiscard]] virtual const std::uint64_t& traced_accesses() const noexcept = 0;
  [[nodiscard]] virtual const std::uint32_t& traced_offset() const noexcept = 0;
};

}  // namespace syncfab::vp
