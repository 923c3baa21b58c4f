// TLM errors on the virtual platform, with golden-model and with verilated
// RTL NICs: a register access the NIC refuses (the model's hw::BusError, the
// RTL's PSLVERR through the APB bridge) reaches the driver as its usual
// hw::BusError; malformed transactions to the NIC's CSR target and to host
// memory get the right TLM error response and are counted per kind; and the
// platform goes on -- the same hosts then run barriers through the unchanged
// driver. One platform per test process.
#include <gtest/gtest.h>
#include <syncfab/test/seeds.hpp>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <syncfab/driver/barrier_desc.hpp>
#include <syncfab/driver/nic.hpp>
#include <syncfab/hw/errors.hpp>
#include <syncfab/hw/nic_regs.hpp>

#include "syncfab/vp/barrier_run.hpp"
#include "syncfab/vp/platform.hpp"

namespace syncfab::vp {
namespace {

// A platform whose hosts run `errors(n, host)` and then a barrier run (its
// compute times seeded from SYNCFAB_SEED, the replay command on a failure),
// after it ran: the run's verdict lines in `bad`. Destroyed by the test (the
// verilated models must go before the Verilator runtime's statics do).
struct RunAfter {
  std::unique_ptr<BarrierRun> run;
  std::unique_ptr<Platform> p;
  std::vector<std::string> bad;
  std::string replay;
};

RunAfter run_after(const std::function<void(unsigned, Host&)>& errors, const PlatformConfig& pc) {
  BarrierRunConfig bc;
  bc.ks = {1, 2};
  bc.barriers = 3;
  bc.seed = syncfab::test::seeds({1}).front();
  RunAfter r;
  r.replay = "replay: " + syncfab::test::replay_command(bc.seed);
  SCOPED_TRACE(r.replay);
  r.run = std::make_unique<BarrierRun>(bc, pc);
  BarrierRun* run = r.run.get();
  r.p = std::make_unique<Platform>("vp", pc, [errors, run](unsigned n, Host& h) {
    errors(n, h);
    run->program(n, h);
  });
  EXPECT_TRUE(r.p->run(sc_core::sc_time(10, sc_core::SC_MS))) << "hosts still running";
  EXPECT_EQ(run->completions(), std::uint64_t{r.p->size()} * 2 * 3);
  r.bad = run->check(*r.p);
  return r;
}

// Every node's NIC of the kind the test is instantiated with.
class VpTlmErrors : public ::testing::TestWithParam<NicKind> {
 protected:
  [[nodiscard]] PlatformConfig config(unsigned x, unsigned y, unsigned z) const {
    PlatformConfig pc;
    pc.fabric.x = x;
    pc.fabric.y = y;
    pc.fabric.z = z;
    if (GetParam() == NicKind::kRtl) {
      for (unsigned n = 0; n < x * y * z; ++n) {
        pc.rtl_nodes.push_back(n);
      }
    }
    return pc;
  }
};

template <typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const hw::BusError& e) {
    return e.what();
  }
  return "(no hw::BusError)";
}

TEST_P(VpTlmErrors, RefusedCsrAccessIsTheDriversBusErrorAndTheRunGoesOn) {
  const PlatformConfig pc = config(2, 1, 1);
  const RunAfter r = run_after(
      [](unsigned n, Host& h) {
        if (n != 0) {
          return;
        }
        // Outside the register map, unaligned, and a write to the read-only ID.
        const auto beyond = static_cast<std::uint32_t>(hw::nic::kBlockBytes);
        const auto unmapped = message_of([&] { (void)h.read32(beyond); });
        std::ostringstream hex;
        hex << "0x" << std::hex << beyond;
        EXPECT_NE(unmapped.find(hex.str()), std::string::npos) << unmapped;
        EXPECT_NE(unmapped.find("TLM_ADDRESS_ERROR_RESPONSE"), std::string::npos) << unmapped;
        const auto unaligned = message_of([&] { h.write32(0x2, 1); });
        EXPECT_NE(unaligned.find("TLM_ADDRESS_ERROR_RESPONSE"), std::string::npos) << unaligned;
        const auto read_only = message_of([&] { h.write32(hw::nic::ID.offset, 0); });
        EXPECT_NE(read_only.find("write at offset 0x"), std::string::npos) << read_only;
        // The NIC still answers.
        EXPECT_EQ(h.read32(hw::nic::ID.offset), hw::nic::kMagic);
      },
      pc);
  SCOPED_TRACE(r.replay);
  Platform* p = r.p.get();
  for (const auto& b : r.bad) {
    ADD_FAILURE() << b;
  }
  EXPECT_EQ(p->nic(0).errors()[TlmError::kAddress], 3U);
  EXPECT_EQ(p->nic(0).errors().total(), 3U);
  EXPECT_EQ(p->nic(1).errors().total(), 0U);
  if (GetParam() == NicKind::kRtl) {
    // The unaligned write and the write to ID reached the pins: PSLVERR.
    EXPECT_EQ(p->rtl_nic(0).apb_errors(), 2U);
  }
}

// t over `data`, 4 bytes at `addr`: a well-formed register access.
void set(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, std::uint64_t addr,
         unsigned char* data) {
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_byte_enable_ptr(nullptr);
  t.set_byte_enable_length(0);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

TEST_P(VpTlmErrors, EveryKindIsAnsweredAndCountedByEveryTarget) {
  const PlatformConfig pc = config(2, 2, 1);
  const RunAfter r = run_after(
      [&pc](unsigned n, Host& h) {
        if (n != 1) {
          return;
        }
        unsigned char data[8] = {};
        unsigned char be[4] = {0xff, 0, 0xff, 0};
        const auto base = pc.fabric.mem_base;
        // The NIC's CSR target.
        tlm::tlm_generic_payload t;
        set(t, tlm::TLM_IGNORE_COMMAND, hw::nic::SCRATCH.offset, data);
        EXPECT_EQ(h.raw_csr(t), tlm::TLM_COMMAND_ERROR_RESPONSE);
        set(t, tlm::TLM_READ_COMMAND, hw::nic::SCRATCH.offset, data);
        t.set_data_length(8);
        t.set_streaming_width(8);
        EXPECT_EQ(h.raw_csr(t), tlm::TLM_BURST_ERROR_RESPONSE);
        set(t, tlm::TLM_WRITE_COMMAND, hw::nic::SCRATCH.offset, data);
        t.set_streaming_width(2);
        EXPECT_EQ(h.raw_csr(t), tlm::TLM_BURST_ERROR_RESPONSE);
        set(t, tlm::TLM_WRITE_COMMAND, hw::nic::SCRATCH.offset, data);
        t.set_byte_enable_ptr(be);
        t.set_byte_enable_length(4);
        EXPECT_EQ(h.raw_csr(t), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        set(t, tlm::TLM_READ_COMMAND, std::uint64_t{1} << 32, data);
        EXPECT_EQ(h.raw_csr(t), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        set(t, tlm::TLM_READ_COMMAND, hw::nic::SCRATCH.offset, data);
        EXPECT_EQ(h.raw_csr(t), tlm::TLM_OK_RESPONSE);
        // Host memory.
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        set(t, tlm::TLM_IGNORE_COMMAND, base, data);
        h.mem.socket->b_transport(t, d);
        EXPECT_EQ(t.get_response_status(), tlm::TLM_COMMAND_ERROR_RESPONSE);
        set(t, tlm::TLM_WRITE_COMMAND, base, data);
        t.set_streaming_width(1);
        h.mem.socket->b_transport(t, d);
        EXPECT_EQ(t.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
        set(t, tlm::TLM_WRITE_COMMAND, base, data);
        t.set_byte_enable_ptr(be);
        t.set_byte_enable_length(4);
        h.mem.socket->b_transport(t, d);
        EXPECT_EQ(t.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        set(t, tlm::TLM_READ_COMMAND, base + pc.fabric.mem_size - 2, data);
        h.mem.socket->b_transport(t, d);
        EXPECT_EQ(t.get_response_status(), tlm::TLM_ADDRESS_ERROR_RESPONSE);
        // Through the Device's memory: the usual DmaError.
        EXPECT_THROW((void)h.dma().read32(base - 4), hw::DmaError);
      },
      pc);
  SCOPED_TRACE(r.replay);
  Platform* p = r.p.get();
  for (const auto& b : r.bad) {
    ADD_FAILURE() << b;
  }
  const auto& nic = p->nic(1).errors();
  EXPECT_EQ(nic[TlmError::kCommand], 1U);
  EXPECT_EQ(nic[TlmError::kBurst], 2U);
  EXPECT_EQ(nic[TlmError::kByteEnable], 1U);
  EXPECT_EQ(nic[TlmError::kAddress], 1U);
  const auto& mem = p->memory(1).errors();
  EXPECT_EQ(mem[TlmError::kCommand], 1U);
  EXPECT_EQ(mem[TlmError::kBurst], 1U);
  EXPECT_EQ(mem[TlmError::kByteEnable], 1U);
  EXPECT_EQ(mem[TlmError::kAddress], 2U);
  for (unsigned n : {0U, 2U, 3U}) {
    EXPECT_EQ(p->nic(n).errors().total() + p->memory(n).errors().total(), 0U) << "node " << n;
  }
}

// The NIC's DMA goes over TLM too: a completion write outside host memory is
// refused by the memory target (TLM_ADDRESS_ERROR_RESPONSE, counted), the
// engine sees hw::DmaError and the driver gets its DMA_ERROR completion.
TEST_P(VpTlmErrors, NicDmaOutsideMemoryIsTheDriversDmaErrorCompletion) {
  const PlatformConfig pc = config(1, 1, 1);
  const RunAfter r = run_after(
      [&pc](unsigned /*n*/, Host& h) {
        driver::NicOptions o;
        o.poll_interval = std::chrono::nanoseconds(8);
        o.clock = [&h] { return h.now(); };
        driver::Nic nic(h, h.mem, {pc.fabric.mem_base, pc.fabric.mem_size}, o);
        driver::BarrierCompletion c;
        c.write = true;
        c.addr = pc.fabric.mem_base - 8;
        c.value = 1;
        const std::vector<std::uint16_t> lids{model::Fabric::lid_of(0)};
        const auto desc =
            driver::encode_barrier_desc(driver::build_barrier_schedule(0, 1, 1), lids, 0, 1, c);
        const auto t = nic.submit_raw_descriptor(desc, driver::SubmitPath::kHdq);
        const auto r = nic.wait_raw(t, std::chrono::microseconds(2));
        EXPECT_EQ(r.err, fmt::ErrCode::kDmaError) << driver::describe(r);
      },
      pc);
  SCOPED_TRACE(r.replay);
  Platform* p = r.p.get();
  for (const auto& b : r.bad) {
    ADD_FAILURE() << b;
  }
  EXPECT_EQ(p->memory(0).errors()[TlmError::kAddress], 1U);
  EXPECT_EQ(p->memory(0).errors().total(), 1U);
}

INSTANTIATE_TEST_SUITE_P(Nics, VpTlmErrors, ::testing::Values(NicKind::kModel, NicKind::kRtl),
                         [](const auto& info) {
                           return std::string(info.param == NicKind::kRtl ? "Rtl" : "Model");
                         });

}  // namespace
}  // namespace syncfab::vp
