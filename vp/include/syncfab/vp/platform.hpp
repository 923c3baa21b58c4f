// N virtual nodes on the golden network: node n is a Host (its program on
// its own SC_THREAD), its host memory (MemoryTarget), and a golden-model NIC
// (ModelNicModule) whose interrupt line is an sc_signal<bool> to the host;
// the NICs' engines are the nodes of one ModelNetwork.
//
//   host.csr ---------------------------> nic.csr
//   host.mem.socket --> memory.socket <-- nic.dma.socket
//   nic.irq ----------- irq[n] ---------> host.irq
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <systemc>

#include <syncfab/model/fabric.hpp>

#include "syncfab/vp/host.hpp"
#include "syncfab/vp/memory_target.hpp"
#include "syncfab/vp/model_network.hpp"
#include "syncfab/vp/model_nic.hpp"

namespace syncfab::vp {

struct PlatformConfig {
  model::FabricConfig fabric;  // torus shape, link latencies, engine, host memory region
  sc_core::sc_time period{1, sc_core::SC_NS};       // one clock of the network
  sc_core::sc_time csr_latency{2, sc_core::SC_NS};  // per register access
  sc_core::sc_time quantum{100, sc_core::SC_NS};    // the hosts' global quantum
  bool skip_idle = true;                            // ModelNetwork: sleep while quiescent
};

class Platform final : public sc_core::sc_module {
 public:
  // program(n, host) is node n's host program.
  Platform(const sc_core::sc_module_name& name, const PlatformConfig& cfg,
           const std::function<void(unsigned, Host&)>& program);

  [[nodiscard]] unsigned size() const noexcept { return static_cast<unsigned>(hosts_.size()); }
  [[nodiscard]] Host& host(unsigned n) { return *hosts_.at(n); }
  [[nodiscard]] ModelNicModule& nic(unsigned n) { return *nics_.at(n); }
  [[nodiscard]] MemoryTarget& memory(unsigned n) { return *memories_.at(n); }
  [[nodiscard]] ModelNetwork& network() { return *network_; }
  [[nodiscard]] const PlatformConfig& config() const noexcept { return cfg_; }

  // Runs until every host's program has ended (true) or `limit` of
  // simulated time has passed (false). Once per process: SystemC elaborates
  // once.
  bool run(const sc_core::sc_time& limit);
  // The interrupt lines and each NIC's register traffic into a trace file.
  void add_traces(sc_core::sc_trace_file* tf);

 private:
  PlatformConfig cfg_;
  std::vector<std::unique_ptr<MemoryTarget>> memories_;
  std::vector<std::unique_ptr<ModelNicModule>> nics_;
  std::vector<ModelNicModule*> nic_ptrs_;
  std::vector<std::unique_ptr<sc_core::sc_signal<bool>>> irqs_;
  std::vector<std::unique_ptr<Host>> hosts_;
  std::unique_ptr<ModelNetwork> network_;
  unsigned running_ = 0;
};

}  // namespace syncfab::vp
