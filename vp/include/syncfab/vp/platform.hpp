// N virtual nodes on the golden network: node n is a Host (its program on
// its own SC_THREAD), its host memory (MemoryTarget), and a NIC whose
// interrupt line is an sc_signal<bool> to the host: the golden model
// (ModelNicModule) or, for the nodes in rtl_nodes, the verilated RTL
// (RtlNicModule, clocked by the platform's sc_clock "clk" of one network
// period). Every NIC is a node of one ModelNetwork.
//
//   host.csr ---------------------------> nic.csr
//   host.mem.socket --> memory.socket <-- nic.dma.socket
//   nic.irq ----------- irq[n] ---------> host.irq
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include <syncfab/model/fabric.hpp>

#include "syncfab/vp/host.hpp"
#include "syncfab/vp/memory_target.hpp"
#include "syncfab/vp/model_network.hpp"
#include "syncfab/vp/model_nic.hpp"
#include "syncfab/vp/rtl_nic.hpp"

class VerilatedFstSc;

namespace syncfab::vp {

struct PlatformConfig {
  model::FabricConfig fabric;  // torus shape, link latencies, engine, host memory region
  sc_core::sc_time period{1, sc_core::SC_NS};       // one clock of the network
  sc_core::sc_time csr_latency{2, sc_core::SC_NS};  // per register access
  sc_core::sc_time quantum{100, sc_core::SC_NS};    // the hosts' global quantum
  bool skip_idle = true;                            // ModelNetwork: sleep while quiescent
  // ModelNetwork, with skip_idle: sleep until the next delivery while every
  // engine waits for a packet (the same cycles as stepping each one).
  bool doze = true;
  // A host on a golden-model NIC sleeps through the poll slices in which
  // its NIC writes nothing (Host::watch_nic_writes; the same polls' results).
  bool event_poll = true;
  std::vector<unsigned> rtl_nodes;  // nodes whose NIC is the verilated RTL
};

class Platform final : public sc_core::sc_module {
 public:
  ~Platform() override;
  Platform(const Platform&) = delete;
  Platform& operator=(const Platform&) = delete;
  Platform(Platform&&) = delete;
  Platform& operator=(Platform&&) = delete;
  // program(n, host) is node n's host program.
  Platform(const sc_core::sc_module_name& name, const PlatformConfig& cfg,
           const std::function<void(unsigned, Host&)>& program);

  [[nodiscard]] unsigned size() const noexcept { return static_cast<unsigned>(hosts_.size()); }
  [[nodiscard]] Host& host(unsigned n) { return *hosts_.at(n); }
  [[nodiscard]] NicModule& nic(unsigned n) { return *nics_.at(n); }
  [[nodiscard]] bool is_rtl(unsigned n) const { return nics_.at(n)->nic_kind() == NicKind::kRtl; }
  // std::logic_error if node n's NIC is of the other kind.
  [[nodiscard]] ModelNicModule& model_nic(unsigned n);
  [[nodiscard]] RtlNicModule& rtl_nic(unsigned n);
  [[nodiscard]] MemoryTarget& memory(unsigned n) { return *memories_.at(n); }
  [[nodiscard]] ModelNetwork& network() { return *network_; }
  [[nodiscard]] const PlatformConfig& config() const noexcept { return cfg_; }

  // Runs until every host's program has ended (true) or `limit` of
  // simulated time has passed (false). Once per process: SystemC elaborates
  // once.
  bool run(const sc_core::sc_time& limit);
  // The interrupt lines and each NIC's register traffic into a trace file
  // (and the RTL NICs' bridge pins).
  void add_traces(sc_core::sc_trace_file* tf);
  // Every RTL NIC's verilated signals into one FST file, written by run()
  // in the SystemC kernel's time base (Verilator's VerilatedFstSc: its time
  // unit and resolution are the kernel's). Before run(); std::logic_error
  // when no NIC is RTL.
  void trace_fst(const std::string& path);

 private:
  PlatformConfig cfg_;
  std::vector<std::unique_ptr<MemoryTarget>> memories_;
  std::unique_ptr<sc_core::sc_clock> clock_;
  std::vector<std::unique_ptr<NicModule>> nics_;
  std::vector<NicModule*> nic_ptrs_;
  std::string fst_path_;
  std::unique_ptr<VerilatedFstSc> fst_;
  std::vector<std::unique_ptr<sc_core::sc_signal<bool>>> irqs_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::unique_ptr<ModelNetwork> network_;
  unsigned running_ = 0;
};

}  // namespace syncfab::vp
