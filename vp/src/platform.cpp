#include "syncfab/vp/platform.hpp"

#include <string>

#include <tlm>

namespace syncfab::vp {

Platform::Platform(const sc_core::sc_module_name& name, const PlatformConfig& cfg,
                   const std::function<void(unsigned, Host&)>& program)
    : sc_core::sc_module(name), cfg_(cfg) {
  tlm::tlm_global_quantum::instance().set(cfg.quantum);
  const unsigned n = cfg.fabric.x * cfg.fabric.y * cfg.fabric.z;
  running_ = n;
  for (unsigned i = 0; i < n; ++i) {
    const std::string s = std::to_string(i);
    memories_.push_back(std::make_unique<MemoryTarget>(("memory" + s).c_str(), cfg.fabric.mem_base,
                                                       cfg.fabric.mem_size));
    nics_.push_back(std::make_unique<ModelNicModule>(("nic" + s).c_str(), cfg.csr_latency));
    nic_ptrs_.push_back(nics_.back().get());
    irqs_.push_back(std::make_unique<sc_core::sc_signal<bool>>(("irq" + s).c_str()));
    hosts_.push_back(std::make_unique<Host>(("host" + s).c_str(),
                                            [program, i](Host& h) { program(i, h); },
                                            [this] {
                                              if (--running_ == 0) {
                                                sc_core::sc_pause();
                                              }
                                            }));
    hosts_[i]->csr.bind(nics_[i]->csr);
    hosts_[i]->mem.socket.bind(memories_[i]->socket);
    nics_[i]->dma.socket.bind(memories_[i]->socket);
    nics_[i]->irq.bind(*irqs_[i]);
    hosts_[i]->irq.bind(*irqs_[i]);
  }
  network_ =
      std::make_unique<ModelNetwork>("network", cfg.fabric, nic_ptrs_, cfg.period, cfg.skip_idle);
}

bool Platform::run(const sc_core::sc_time& limit) {
  sc_core::sc_start(limit);
  return running_ == 0;
}

void Platform::add_traces(sc_core::sc_trace_file* tf) {
  for (unsigned i = 0; i < size(); ++i) {
    const std::string s = std::to_string(i);
    sc_core::sc_trace(tf, *irqs_[i], "irq" + s);
    sc_core::sc_trace(tf, nics_[i]->traced_accesses(), "nic" + s + ".csr_accesses");
    sc_core::sc_trace(tf, nics_[i]->traced_offset(), "nic" + s + ".csr_offset");
  }
}

}  // namespace syncfab::vp
