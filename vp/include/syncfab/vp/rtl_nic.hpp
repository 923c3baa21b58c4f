// The verilated NIC (nic_top, Verilator --sc: a SystemC module with pin
// ports) on the platform, behind the same sockets as the golden model:
//
//   csr (TLM target) --> APB bridge --> psel/penable/paddr/... pins
//   mem_req/mem_rsp pins --> memory bridge --> dma (MemoryPort, DMI) --> host memory
//   intr_o ------------------------------------------------------------> irq
//   rx/tx pins <--> a node of the golden network (model::FabricEndpoint)
//
// The RTL is clocked by the platform's sc_clock (clk). The bridges are not
// processes of their own: the network calls sample() at every rising edge
// (what the pins showed in the cycle that ends: the verilated model's
// outputs are still the values from before the edge), steps the fabric, then
// calls drive() (the inputs of the next cycle). One process for every NIC
// and the network makes the order of a cycle fixed.
//
// APB bridge: a register access from the host's b_transport is checked as
// the model NIC checks it (tlm_check: command, width, byte enables; an offset
// beyond the register block is TLM_ADDRESS_ERROR_RESPONSE), then waits out
// the initiator's annotated delay, runs one APB transfer (setup, then access
// until PREADY) and returns; PSLVERR is TLM_ADDRESS_ERROR_RESPONSE. Each
// refusal is counted and reported as a SystemC warning; the platform goes on.
//
// Memory bridge: every request is taken at once (mem_req_ready high) and
// answered the cycle after, in order; an access the memory refuses
// (hw::DmaError) is answered with mem_rsp_err. Writes into the completion
// ring (its base and size seen on the APB) are kept as completions.
//
// Reset: rst_ni is low for the first kResetCycles edges; then the bridge
// writes NODE_LID (what the system software does on real hardware) before
// it lets the host's first access through.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <syncfab/model/fabric.hpp>

#include "syncfab/vp/memory_port.hpp"
#include "syncfab/vp/nic_module.hpp"
#include "syncfab/vp/tlm_check.hpp"

class Vnic_top;
class VerilatedFstC;

namespace syncfab::vp {

class RtlNicModule final : public sc_core::sc_module,
                           public NicModule,
                           public model::FabricEndpoint {
 public:
  SC_HAS_PROCESS(RtlNicModule);
  static constexpr unsigned kResetCycles = 3;

  // lid: this node's NODE_LID; period: the clock's, for the cycle numbers of
  // the completions.
  RtlNicModule(const sc_core::sc_module_name& name, std::uint16_t lid,
               const sc_core::sc_time& period);
  ~RtlNicModule() override;
  RtlNicModule(const RtlNicModule&) = delete;
  RtlNicModule& operator=(const RtlNicModule&) = delete;
  RtlNicModule(RtlNicModule&&) = delete;
  RtlNicModule& operator=(RtlNicModule&&) = delete;

  sc_core::sc_in<bool> clk;
  tlm_utils::simple_target_socket<RtlNicModule> csr;
  MemoryPort dma;  // bind dma.socket to host memory
  sc_core::sc_out<bool> irq;

  // At a rising edge, before and after the network's step (see above).
  void sample();
  void drive();

  // The verilated model's signals into an FST (its scope is this module's
  // name); after elaboration.
  void trace_fst(VerilatedFstC& fst);
  // The bridges' pins into an sc_trace file.
  void add_traces(sc_core::sc_trace_file* tf) const;

  // model::FabricEndpoint
  void receive(std::span<const model::LinkFlit> flits) override;
  std::optional<std::vector<model::LinkFlit>> transmit_flits() override;
  [[nodiscard]] bool quiescent() const override { return false; }
  [[nodiscard]] std::size_t link_backlog() const override;

  // NicModule
  [[nodiscard]] NicKind nic_kind() const noexcept override { return NicKind::kRtl; }
  [[nodiscard]] tlm::tlm_target_socket<>& csr_target() override { return csr; }
  [[nodiscard]] MemoryPort& dma_port() override { return dma; }
  [[nodiscard]] sc_core::sc_out<bool>& irq_out() override { return irq; }
  [[nodiscard]] const TlmErrorCounts& errors() const noexcept override { return errors_; }
  [[nodiscard]] std::uint64_t csr_accesses() const noexcept override { return accesses_; }
  [[nodiscard]] std::vector<model::CompletionRecord> completions() const override {
    return completions_;
  }
  [[nodiscard]] const std::uint64_t& traced_accesses() const noexcept override { return accesses_; }
  [[nodiscard]] const std::uint32_t& traced_offset() const noexcept override {
    return last_offset_;
  }
  [[nodiscard]] std::uint64_t apb_errors() const noexcept { return apb_errors_; }
  [[nodiscard]] std::uint64_t mem_requests() const noexcept { return mem_requests_; }

 private:
  struct ApbRequest {
    bool write = false;
    std::uint32_t addr = 0;
    std::uint32_t data = 0;
    bool boot = false;  // the bridge's own NODE_LID write
  };
  struct MemResponse {
    std::uint64_t data = 0;
    bool err = false;
  };
  enum class ApbPhase : std::uint8_t { kIdle, kSetup, kAccess };

  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void sample_apb();
  void sample_mem();
  void sample_net();
  void apb_snoop(const ApbRequest& r);

  std::unique_ptr<Vnic_top> dut_;
  std::uint16_t lid_;
  sc_core::sc_time period_;

  sc_core::sc_signal<bool> rst_n_{"rst_n"};
  sc_core::sc_signal<bool> psel_{"psel"}, penable_{"penable"}, pwrite_{"pwrite"};
  sc_core::sc_signal<std::uint32_t> pprot_{"pprot"}, pstrb_{"pstrb"}, paddr_{"paddr"},
      pwdata_{"pwdata"}, prdata_{"prdata"};
  sc_core::sc_signal<bool> pready_{"pready"}, pslverr_{"pslverr"};
  sc_core::sc_signal<bool> rx_valid_{"rx_valid"}, rx_ready_{"rx_ready"}, rx_last_{"rx_last"};
  sc_core::sc_signal<sc_dt::sc_bv<128>> rx_data_{"rx_data"}, tx_data_{"tx_data"};
  sc_core::sc_signal<bool> tx_valid_{"tx_valid"}, tx_ready_{"tx_ready"}, tx_last_{"tx_last"};
  sc_core::sc_signal<bool> mem_req_valid_{"mem_req_valid"}, mem_req_ready_{"mem_req_ready"},
      mem_req_write_{"mem_req_write"};
  sc_core::sc_signal<std::uint64_t> mem_req_addr_{"mem_req_addr"}, mem_req_data_{"mem_req_data"},
      mem_rsp_data_{"mem_rsp_data"};
  sc_core::sc_signal<bool> mem_rsp_valid_{"mem_rsp_valid"}, mem_rsp_ready_{"mem_rsp_ready"},
      mem_rsp_err_{"mem_rsp_err"};

  std::uint64_t edges_ = 0;
  // APB.
  ApbPhase phase_ = ApbPhase::kIdle;
  std::optional<ApbRequest> apb_req_;  // waiting or on the bus
  bool ready_ = false;                 // reset over and NODE_LID written
  std::uint32_t apb_rdata_ = 0;
  bool apb_err_ = false;
  sc_core::sc_event apb_done_;
  sc_core::sc_event apb_free_;
  // Memory.
  std::deque<MemResponse> mem_rsp_;
  bool mem_rsp_shown_ = false;
  std::uint64_t cq_base_ = 0;
  std::uint32_t cq_entries_ = 0;
  std::vector<model::CompletionRecord> completions_;
  // Network.
  std::deque<std::vector<model::LinkFlit>> inbound_;
  std::size_t rx_next_ = 0;  // flit of inbound_.front() shown now
  bool rx_shown_ = false;
  std::vector<model::LinkFlit> tx_pkt_;
  std::deque<std::vector<model::LinkFlit>> outbound_;

  TlmErrorCounts errors_;
  std::uint64_t accesses_ = 0;
  std::uint32_t last_offset_ = 0;
  std::uint64_t apb_errors_ = 0;
  std::uint64_t mem_requests_ = 0;
};

}  // namespace syncfab::vp
