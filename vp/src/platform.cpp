#include "syncfab/vp/platform.hpp"

#include <verilated.h>
#include <verilated_fst_sc.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include <tlm>

namespace syncfab::vp {

Platform::Platform(const sc_core::sc_module_name& name, const PlatformConfig& cfg,
                   const std::function<void(unsigned, Host&)>& program)
    : sc_core::sc_module(name), cfg_(cfg) {
  tlm::tlm_global_quantum::instance().set(cfg.quantum);
  const unsigned n = cfg.fabric.x * cfg.fabric.y * cfg.fabric.z;
  for (const unsigned r : cfg.rtl_nodes) {
    if (r >= n) {
      throw std::invalid_argument("platform: RTL node " + std::to_string(r) + " of " +
                                  std::to_string(n) + " nodes");
    }
  }
  if (!cfg.rtl_nodes.empty()) {
    // The verilated models compute their trace activity only when told
    // before they run; an FST may be asked for after construction.
    Verilated::traceEverOn(true);
    clock_ = std::make_unique<sc_core::sc_clock>("clk", cfg.period);
  }
  running_ = n;
  for (unsigned i = 0; i < n; ++i) {
    const std::string s = std::to_string(i);
    memories_.push_back(std::make_unique<MemoryTarget>(("memory" + s).c_str(), cfg.fabric.mem_base,
                                                       cfg.fabric.mem_size));
    if (std::find(cfg.rtl_nodes.begin(), cfg.rtl_nodes.end(), i) != cfg.rtl_nodes.end()) {
      auto r =
          std::make_unique<RtlNicModule>(("nic" + s).c_str(), model::Fabric::lid_of(i), cfg.period);
      r->clk.bind(*clock_);
      nics_.push_back(std::move(r));
    } else {
      nics_.push_back(std::make_unique<ModelNicModule>(("nic" + s).c_str(), cfg.csr_latency));
    }
    nic_ptrs_.push_back(nics_.back().get());
    irqs_.push_back(std::make_unique<sc_core::sc_signal<bool>>(("irq" + s).c_str()));
    hosts_.push_back(std::make_unique<Host>(("host" + s).c_str(),
                                            [program, i](Host& h) { program(i, h); },
                                            [this] {
                                              if (--running_ == 0) {
                                                sc_core::sc_pause();
                                              }
                                            }));
    hosts_[i]->csr.bind(nics_[i]->csr_target());
    hosts_[i]->mem.socket.bind(memories_[i]->socket);
    nics_[i]->dma_port().socket.bind(memories_[i]->socket);
    nics_[i]->irq_out().bind(*irqs_[i]);
    hosts_[i]->irq.bind(*irqs_[i]);
  }
  network_ = std::make_unique<ModelNetwork>("network", cfg.fabric, nic_ptrs_, cfg.period,
                                            cfg.skip_idle, cfg.doze, clock_.get());
  for (unsigned i = 0; i < n; ++i) {
    // With an RTL NIC the network steps a delta after each clock edge, so a
    // DMA write at a poll's time is after that poll: every host then polls
    // once per slice.
    if (cfg.event_poll && cfg.rtl_nodes.empty()) {
      hosts_[i]->watch_nic_writes(nics_[i]->dma_port().written());
    }
  }
}

Platform::~Platform() {
  if (fst_) {
    fst_->close();
  }
}

ModelNicModule& Platform::model_nic(unsigned n) {
  auto* m = dynamic_cast<ModelNicModule*>(nics_.at(n).get());
  if (m == nullptr) {
    throw std::logic_error("platform: node " + std::to_string(n) + "'s NIC is the RTL");
  }
  return *m;
}

RtlNicModule& Platform::rtl_nic(unsigned n) {
  auto* r = dynamic_cast<RtlNicModule*>(nics_.at(n).get());
  if (r == nullptr) {
    throw std::logic_error("platform: node " + std::to_string(n) + "'s NIC is the golden model");
  }
  return *r;
}

void Platform::trace_fst(const std::string& path) {
  if (cfg_.rtl_nodes.empty()) {
    throw std::logic_error("platform: an FST of the RTL NICs, but every NIC is the golden model");
  }
  fst_path_ = path;
}

bool Platform::run(const sc_core::sc_time& limit) {
  if (!fst_path_.empty() && !fst_) {
    // VerilatedFstSc opens only once elaboration is done: the first delta
    // cycles of time 0 run first (Verilator's SystemC tracing example does
    // the same).
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    fst_ = std::make_unique<VerilatedFstSc>();
    for (auto* nic : nic_ptrs_) {
      if (auto* r = dynamic_cast<RtlNicModule*>(nic)) {
        r->trace_fst(*fst_);
      }
    }
    fst_->open(fst_path_.c_str());
  }
  sc_core::sc_start(limit);
  if (fst_) {
    fst_->flush();
  }
  return running_ == 0;
}

void Platform::add_traces(sc_core::sc_trace_file* tf) {
  for (unsigned i = 0; i < size(); ++i) {
    const std::string s = std::to_string(i);
    sc_core::sc_trace(tf, *irqs_[i], "irq" + s);
    sc_core::sc_trace(tf, nics_[i]->traced_accesses(), "nic" + s + ".csr_accesses");
    sc_core::sc_trace(tf, nics_[i]->traced_offset(), "nic" + s + ".csr_offset");
    if (auto* r = dynamic_cast<RtlNicModule*>(nics_[i].get())) {
      r->add_traces(tf);
    }
  }
}

}  // namespace syncfab::vp
