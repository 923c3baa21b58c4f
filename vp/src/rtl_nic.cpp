#include "syncfab/vp/rtl_nic.hpp"

#include <Vnic_top.h>
#include <verilated_fst_c.h>

#include <array>
#include <cstring>
#include <limits>
#include <string>

#include <syncfab/fmt/formats.hpp>
#include <syncfab/hw/errors.hpp>
#include <syncfab/hw/nic_regs.hpp>

namespace syncfab::vp {

namespace {

constexpr std::size_t kFlitBytes = fmt::kFlitBits / 8;
static_assert(kFlitBytes == 16, "the link's flit is the 128-bit port of nic_top");
constexpr std::size_t kWordBytes = 8;  // one memory-port beat (mem_data_t)

// Byte i of a flit is bits 8i .. 8i+7 of the port (docs/nic/top.md "Interface").
sc_dt::sc_bv<128> bits_of(const model::Flit& f) {
  sc_dt::sc_bv<128> v;
  for (std::size_t w = 0; w < 4; ++w) {
    std::uint32_t word = 0;
    for (std::size_t b = 0; b < 4; ++b) {
      word |= std::uint32_t{f[(4 * w) + b]} << (8 * b);
    }
    v.set_word(static_cast<int>(w), word);
  }
  return v;
}

model::Flit flit_of(const sc_dt::sc_bv<128>& v) {
  model::Flit f{};
  for (std::size_t w = 0; w < 4; ++w) {
    const std::uint32_t word = v.get_word(static_cast<int>(w));
    for (std::size_t b = 0; b < 4; ++b) {
      f[(4 * w) + b] = static_cast<std::uint8_t>(word >> (8 * b));
    }
  }
  return f;
}

std::uint64_t field(std::uint64_t word, std::size_t bit, unsigned width) {
  return (word >> bit) & ((std::uint64_t{1} << width) - 1);
}

}  // namespace

RtlNicModule::RtlNicModule(const sc_core::sc_module_name& name, std::uint16_t lid,
                           const sc_core::sc_time& period)
    : sc_core::sc_module(name),
      clk("clk"),
      csr("csr"),
      dma("dma"),
      irq("irq"),
      dut_(std::make_unique<Vnic_top>("dut")),
      lid_(lid),
      period_(period) {
  csr.register_b_transport(this, &RtlNicModule::b_transport);
  Vnic_top& d = *dut_;
  d.clk_i(clk);
  d.rst_ni(rst_n_);
  d.psel_i(psel_);
  d.penable_i(penable_);
  d.pwrite_i(pwrite_);
  d.pprot_i(pprot_);
  d.paddr_i(paddr_);
  d.pwdata_i(pwdata_);
  d.pstrb_i(pstrb_);
  d.prdata_o(prdata_);
  d.pready_o(pready_);
  d.pslverr_o(pslverr_);
  d.intr_o(irq);
  d.rx_valid_i(rx_valid_);
  d.rx_ready_o(rx_ready_);
  d.rx_data_i(rx_data_);
  d.rx_last_i(rx_last_);
  d.tx_valid_o(tx_valid_);
  d.tx_ready_i(tx_ready_);
  d.tx_data_o(tx_data_);
  d.tx_last_o(tx_last_);
  d.mem_req_valid_o(mem_req_valid_);
  d.mem_req_ready_i(mem_req_ready_);
  d.mem_req_write_o(mem_req_write_);
  d.mem_req_addr_o(mem_req_addr_);
  d.mem_req_data_o(mem_req_data_);
  d.mem_rsp_valid_i(mem_rsp_valid_);
  d.mem_rsp_ready_o(mem_rsp_ready_);
  d.mem_rsp_data_i(mem_rsp_data_);
  d.mem_rsp_err_i(mem_rsp_err_);
  // The link always takes what the NIC sends (the golden network has no
  // back-pressure), the memory every request.
  tx_ready_.write(true);
  mem_req_ready_.write(true);
}

RtlNicModule::~RtlNicModule() = default;

void RtlNicModule::trace_fst(VerilatedFstC& fst) { dut_->trace(&fst, 99); }

void RtlNicModule::add_traces(sc_core::sc_trace_file* tf) const {
  const std::string n = name();
  sc_core::sc_trace(tf, psel_, n + ".psel");
  sc_core::sc_trace(tf, penable_, n + ".penable");
  sc_core::sc_trace(tf, pwrite_, n + ".pwrite");
  sc_core::sc_trace(tf, paddr_, n + ".paddr");
  sc_core::sc_trace(tf, pwdata_, n + ".pwdata");
  sc_core::sc_trace(tf, prdata_, n + ".prdata");
  sc_core::sc_trace(tf, pready_, n + ".pready");
  sc_core::sc_trace(tf, pslverr_, n + ".pslverr");
  sc_core::sc_trace(tf, mem_req_valid_, n + ".mem_req_valid");
  sc_core::sc_trace(tf, mem_req_write_, n + ".mem_req_write");
  sc_core::sc_trace(tf, mem_req_addr_, n + ".mem_req_addr");
  sc_core::sc_trace(tf, mem_rsp_valid_, n + ".mem_rsp_valid");
  sc_core::sc_trace(tf, rx_valid_, n + ".rx_valid");
  sc_core::sc_trace(tf, tx_valid_, n + ".tx_valid");
}

// ------------------------------------------------------------------ APB

void RtlNicModule::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  ++accesses_;
  if (!check_word_access(t, errors_, name())) {
    return;
  }
  if (t.get_address() >= hw::nic::kBlockBytes) {
    refuse(t, TlmError::kAddress, errors_, name(),
           "beyond the register block of " + std::to_string(hw::nic::kBlockBytes) + " bytes");
    return;
  }
  const auto offset = static_cast<std::uint32_t>(t.get_address());
  last_offset_ = offset;
  // Pin level: the access starts at the initiator's time.
  sc_core::wait(delay);
  delay = sc_core::SC_ZERO_TIME;
  while (!ready_ || apb_req_) {
    sc_core::wait(apb_free_);
  }
  ApbRequest r;
  r.write = t.is_write();
  r.addr = offset;
  if (r.write) {
    std::memcpy(&r.data, t.get_data_ptr(), 4);
  }
  apb_req_ = r;
  sc_core::wait(apb_done_);
  if (apb_err_) {
    ++apb_errors_;
    refuse(t, TlmError::kAddress, errors_, name(), "the NIC answered PSLVERR");
    return;
  }
  if (!r.write) {
    std::memcpy(t.get_data_ptr(), &apb_rdata_, 4);
  }
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

// The completion ring's place, from the driver's writes.
void RtlNicModule::apb_snoop(const ApbRequest& r) {
  if (!r.write) {
    return;
  }
  if (r.addr == hw::nic::CQ_BASE_LO.offset) {
    cq_base_ = (cq_base_ & ~std::uint64_t{0xFFFF'FFFF}) | r.data;
  } else if (r.addr == hw::nic::CQ_BASE_HI.offset) {
    cq_base_ = (cq_base_ & 0xFFFF'FFFF) | (std::uint64_t{r.data} << 32);
  } else if (r.addr == hw::nic::CQ_SIZE.offset) {
    cq_entries_ = r.data;
  }
}

void RtlNicModule::sample_apb() {
  if (phase_ == ApbPhase::kSetup) {
    phase_ = ApbPhase::kAccess;
    return;
  }
  if (phase_ != ApbPhase::kAccess || !pready_.read()) {
    return;
  }
  phase_ = ApbPhase::kIdle;
  const ApbRequest r = *apb_req_;
  apb_req_.reset();
  apb_err_ = pslverr_.read();
  apb_rdata_ = prdata_.read();
  if (!apb_err_) {
    apb_snoop(r);
  }
  if (r.boot) {
    if (apb_err_) {
      SC_REPORT_ERROR("syncfab/vp/rtl", (std::string(name()) + ": NODE_LID write refused").c_str());
    }
    ready_ = true;
    apb_free_.notify(sc_core::SC_ZERO_TIME);
  } else {
    apb_done_.notify(sc_core::SC_ZERO_TIME);
    apb_free_.notify(sc_core::SC_ZERO_TIME);
  }
}

// ------------------------------------------------------------------ memory

void RtlNicModule::sample_mem() {
  if (mem_rsp_shown_ && mem_rsp_ready_.read()) {
    mem_rsp_.pop_front();
  }
  if (!mem_req_valid_.read()) {
    return;
  }
  ++mem_requests_;
  const std::uint64_t addr = mem_req_addr_.read();
  MemResponse rsp;
  try {
    if (addr % kWordBytes != 0) {
      throw hw::DmaError("unaligned");
    }
    std::array<std::byte, kWordBytes> bytes{};
    if (mem_req_write_.read()) {
      const std::uint64_t w = mem_req_data_.read();
      for (std::size_t i = 0; i < kWordBytes; ++i) {
        bytes[i] = static_cast<std::byte>(w >> (8 * i));
      }
      dma.write(addr, bytes);
      if (cq_entries_ != 0 && addr >= cq_base_ &&
          addr < cq_base_ + fmt::CqEntry::kSizeBytes * cq_entries_ &&
          (addr - cq_base_) % fmt::CqEntry::kSizeBytes == 0) {
        using E = fmt::CqEntry;
        model::CompletionRecord c;
        c.ctx = static_cast<std::uint8_t>(field(w, E::kCtxBit, E::kCtxWidth));
        c.status = static_cast<fmt::CqStatus>(field(w, E::kStatusBit, E::kStatusWidth));
        c.err = static_cast<fmt::ErrCode>(field(w, E::kErrCodeBit, E::kErrCodeWidth));
        c.epoch = static_cast<std::uint16_t>(field(w, E::kEpochBit, E::kEpochWidth));
        c.cycle = sc_core::sc_time_stamp().value() / period_.value();
        completions_.push_back(c);
      }
    } else {
      dma.read(addr, bytes);
      for (std::size_t i = 0; i < kWordBytes; ++i) {
        rsp.data |= std::uint64_t{std::to_integer<std::uint8_t>(bytes[i])} << (8 * i);
      }
    }
  } catch (const hw::DmaError&) {
    rsp.err = true;
  }
  mem_rsp_.push_back(rsp);
}

// ------------------------------------------------------------------ network

void RtlNicModule::receive(std::span<const model::LinkFlit> flits) {
  if (!flits.empty()) {
    inbound_.emplace_back(flits.begin(), flits.end());
  }
}

std::optional<std::vector<model::LinkFlit>> RtlNicModule::transmit_flits() {
  if (outbound_.empty()) {
    return std::nullopt;
  }
  auto p = std::move(outbound_.front());
  outbound_.pop_front();
  return p;
}

std::size_t RtlNicModule::link_backlog() const {
  std::size_t n = 0;
  for (const auto& p : inbound_) {
    n += p.size();
  }
  return n - (inbound_.empty() ? 0 : rx_next_);
}

void RtlNicModule::sample_net() {
  if (rx_shown_ && rx_ready_.read()) {
    if (++rx_next_ == inbound_.front().size()) {
      inbound_.pop_front();
      rx_next_ = 0;
    }
  }
  if (tx_valid_.read()) {
    tx_pkt_.push_back(model::LinkFlit{flit_of(tx_data_.read()), tx_last_.read()});
    if (tx_last_.read()) {
      outbound_.push_back(std::move(tx_pkt_));
      tx_pkt_.clear();
    }
  }
}

// ------------------------------------------------------------------ per edge

void RtlNicModule::sample() {
  ++edges_;
  if (edges_ <= kResetCycles) {
    return;
  }
  sample_apb();
  sample_mem();
  sample_net();
}

void RtlNicModule::drive() {
  if (edges_ < kResetCycles) {
    return;
  }
  if (edges_ == kResetCycles) {
    rst_n_.write(true);
    ApbRequest boot;
    boot.write = true;
    boot.addr = hw::nic::NODE_LID.offset;
    boot.data = lid_;
    boot.boot = true;
    apb_req_ = boot;
    return;
  }
  // APB: a new transfer's setup phase, or the access phase of the current one.
  if (phase_ == ApbPhase::kIdle && apb_req_) {
    psel_.write(true);
    penable_.write(false);
    pwrite_.write(apb_req_->write);
    paddr_.write(apb_req_->addr);
    pwdata_.write(apb_req_->write ? apb_req_->data : 0);
    pstrb_.write(apb_req_->write ? 0xF : 0);
    phase_ = ApbPhase::kSetup;
  } else if (phase_ == ApbPhase::kAccess) {
    penable_.write(true);
  } else if (phase_ == ApbPhase::kIdle) {
    psel_.write(false);
    penable_.write(false);
  }
  // Memory: the oldest response.
  mem_rsp_shown_ = !mem_rsp_.empty();
  mem_rsp_valid_.write(mem_rsp_shown_);
  if (mem_rsp_shown_) {
    mem_rsp_data_.write(mem_rsp_.front().data);
    mem_rsp_err_.write(mem_rsp_.front().err);
  }
  // Network: the next flit due.
  rx_shown_ = !inbound_.empty();
  rx_valid_.write(rx_shown_);
  if (rx_shown_) {
    const auto& f = inbound_.front()[rx_next_];
    rx_data_.write(bits_of(f.data));
    rx_last_.write(f.last);
  }
}

}  // namespace syncfab::vp
