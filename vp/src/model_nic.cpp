#include "syncfab/vp/model_nic.hpp"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include <syncfab/hw/errors.hpp>

#include "syncfab/vp/model_network.hpp"

namespace syncfab::vp {

ModelNicModule::ModelNicModule(const sc_core::sc_module_name& name,
                               const sc_core::sc_time& csr_latency)
    : sc_core::sc_module(name), csr("csr"), dma("dma"), irq("irq"), csr_latency_(csr_latency) {
  csr.register_b_transport(this, &ModelNicModule::b_transport);
  SC_METHOD(drive_irq);
  sensitive << irq_changed_;
  dont_initialize();
}

void ModelNicModule::attach(model::BarrierEngine& engine, ModelNetwork& network) {
  engine_ = &engine;
  network_ = &network;
}

void ModelNicModule::after_step() {
  if (engine_->irq() != irq_driven_) {
    irq_changed_.notify(sc_core::SC_ZERO_TIME);
  }
}

void ModelNicModule::drive_irq() {
  irq_driven_ = engine_->irq();
  irq.write(irq_driven_);
}

void ModelNicModule::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  if (engine_ == nullptr) {
    throw std::logic_error(std::string(name()) + ": no engine attached");
  }
  ++accesses_;
  delay += csr_latency_;
  if (!check_word_access(t, errors_, name())) {
    return;
  }
  if (t.get_address() > std::numeric_limits<std::uint32_t>::max()) {
    refuse(t, TlmError::kAddress, errors_, name(), "beyond the 32-bit register space");
    return;
  }
  const auto offset = static_cast<std::uint32_t>(t.get_address());
  last_offset_ = offset;
  // The network may have let the engine sleep; it catches it up to now
  // before the access changes what the engine would have done meanwhile.
  network_->before_access();
  try {
    if (t.is_read()) {
      const std::uint32_t v = engine_->csr_read(offset);
      std::memcpy(t.get_data_ptr(), &v, 4);
    } else {
      std::uint32_t v = 0;
      std::memcpy(&v, t.get_data_ptr(), 4);
      engine_->csr_write(offset, v);
    }
  } catch (const hw::BusError& e) {
    refuse(t, TlmError::kAddress, errors_, name(), e.what());
    return;
  }
  network_->after_access();
  after_step();
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace syncfab::vp
