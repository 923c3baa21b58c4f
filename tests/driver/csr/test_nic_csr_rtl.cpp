// The generated NIC register block, verilated (tests/driver/csr/nic_csr_tb.sv around
// rtl/nic/nic_csr.sv), driven over APB by the harness. Every offset, mask and
// reset value comes from the generated C header, so these tests check the SV
// and the C header generated from the same RDL against each other.
#include <Vnic_csr_tb.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "syncfab/driver/identity.hpp"
#include "syncfab/driver/rtl_device.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/host_memory.hpp"
#include "syncfab/hw/nic_regs.hpp"
#include "syncfab/tb/tb.hpp"

using namespace syncfab::tb;
namespace drv = syncfab::driver;
namespace hw = syncfab::hw;
namespace nic = syncfab::hw::nic;

namespace {

constexpr SimTime kClkPeriod = 10'000;      // 100 MHz
constexpr std::uint32_t kCsrWindow = 4096;  // regblock --addr-width 12 (rtl/nic/CMakeLists.txt)

// The mailbox's registers (VERSION.MINOR 5), from the generated C header
// like nic_regs.hpp's (which does not name them).
#define CSR_TB_REG(R) \
  constexpr nic::Reg R { static_cast<std::uint32_t>(offsetof(nic_csr_t, R)), #R }
#define CSR_TB_FIELD(R, F)                                                             \
  constexpr nic::Field R##_##F {                                                       \
    R, static_cast<std::uint32_t>(NIC_CSR__##R##__##F##_bm), NIC_CSR__##R##__##F##_bp, \
        NIC_CSR__##R##__##F##_bw, #R "." #F                                            \
  }
using nic::HW_CFG2;
using nic::INTR_ENABLE;
using nic::INTR_STATUS;
CSR_TB_FIELD(INTR_STATUS, MGMT_RX);
CSR_TB_FIELD(INTR_ENABLE, MGMT_RX);
CSR_TB_FIELD(HW_CFG2, MBOX_DEPTH);
CSR_TB_REG(MBOX_TX_DATA0);
CSR_TB_REG(MBOX_TX_CTRL);
CSR_TB_FIELD(MBOX_TX_CTRL, DST_LID);
CSR_TB_FIELD(MBOX_TX_CTRL, SEND);
CSR_TB_REG(MBOX_STATUS);
CSR_TB_FIELD(MBOX_STATUS, TX_BUSY);
CSR_TB_FIELD(MBOX_STATUS, RX_LEVEL);
CSR_TB_REG(MBOX_RX_DATA0);
CSR_TB_REG(MBOX_RX_SRC);
CSR_TB_FIELD(MBOX_RX_SRC, SRC_LID);
CSR_TB_REG(MBOX_RX_POP);
CSR_TB_FIELD(MBOX_RX_POP, POP);
constexpr unsigned kMboxWords = 8;  // MBOX_TX_DATA0..7, MBOX_RX_DATA0..7: 4 bytes apart
nic::Reg mbox_tx_data(unsigned i) { return {MBOX_TX_DATA0.offset + 4 * i, "MBOX_TX_DATAi"}; }
nic::Reg mbox_rx_data(unsigned i) { return {MBOX_RX_DATA0.offset + 4 * i, "MBOX_RX_DATAi"}; }

// Interrupt cause bit positions on intr_set_i, in INTR_STATUS field order.
constexpr std::array<nic::Field, 5> kCauses = {nic::INTR_STATUS_DONE, nic::INTR_STATUS_ERROR,
                                               nic::INTR_STATUS_HDQ_OVERFLOW,
                                               nic::INTR_STATUS_DMA_ERROR, INTR_STATUS_MGMT_RX};

std::uint32_t cause_set_bit(const nic::Field& f) {
  for (std::size_t i = 0; i < kCauses.size(); ++i) {
    if (kCauses[i].mask == f.mask) {
      return 1U << i;
    }
  }
  throw std::invalid_argument("not an interrupt cause: " + std::string(f.name));
}

class Bench {
 public:
  explicit Bench(TestContext& ctx)
      : dut(ctx.make_dut<Vnic_csr_tb>()),
        clk(ctx.sim().add_clock("clk", dut.clk_i, kClkPeriod)),
        apb(clk, apb_pins_of(dut, kCsrWindow)) {
    dut.rst_ni = 0;
    apb.idle();
    dut.pprot_i = 0;
    dut.hw_cfg_num_ctx_i = 0;
    dut.hw_cfg_k_max_i = 0;
    dut.hw_cfg_max_rounds_i = 0;
    dut.hw_cfg_hdq_depth_i = 0;
    dut.hw_cfg2_max_members_i = 0;
    dut.hw_cfg2_mbox_depth_i = 0;
    dut.mbox_status_tx_busy_i = 0;
    dut.mbox_status_rx_level_i = 0;
    for (unsigned i = 0; i < kMboxWords; ++i) {
      dut.mbox_rx_data_i[i] = 0;
    }
    dut.mbox_rx_src_i = 0;
    dut.status_busy_i = 0;
    dut.status_resetting_i = 0;
    dut.status_tx_paused_i = 0;
    dut.status_active_ctx_i = 0;
    dut.sdq_cons_i = 0;
    dut.cq_head_i = 0;
    dut.hdq_level_i = 0;
    dut.hdq_full_i = 0;
    dut.intr_set_i = 0;
    dut.cnt_incr_i = 0;
  }

  Task<> reset() {
    dut.rst_ni = 0;
    co_await ClockCycles(clk, 3);
    dut.rst_ni = 1;
    co_await RisingEdge(clk);
  }

  // An access that must succeed.
  Task<std::uint32_t> read(nic::Reg r) {
    const ApbResult res = co_await apb.read(r.offset);
    TB_CHECK(!res.error) << "read of " << r.name << " answered PSLVERR";
    co_return res.data;
  }
  Task<> write(nic::Reg r, std::uint32_t v) {
    const ApbResult res = co_await apb.write(r.offset, v);
    TB_CHECK(!res.error) << "write of " << r.name << " answered PSLVERR";
  }

  Vnic_csr_tb& dut;
  Clock& clk;
  ApbMaster apb;
};

std::uint32_t byte_mask(std::uint8_t strb) {
  std::uint32_t m = 0;
  for (unsigned i = 0; i < 4; ++i) {
    if (((strb >> i) & 1U) != 0) {
      m |= 0xFFU << (8 * i);
    }
  }
  return m;
}

struct RwReg {
  nic::Reg reg;
  std::uint32_t mask;  // bits that are stored and read back
};

// Software read/write registers, with the bits that hold a value (from the
// header's field masks). CTRL's pulse fields read 0, so only ENABLE is kept.
std::vector<RwReg> rw_registers() {
  std::vector<RwReg> regs = {
      {nic::SCRATCH, nic::SCRATCH_VALUE.mask},
      {nic::CTRL, nic::CTRL_ENABLE.mask},
      {nic::INTR_ENABLE, nic::INTR_ENABLE_DONE.mask | nic::INTR_ENABLE_ERROR.mask |
                             nic::INTR_ENABLE_HDQ_OVERFLOW.mask | nic::INTR_ENABLE_DMA_ERROR.mask |
                             INTR_ENABLE_MGMT_RX.mask},
      {nic::NODE_LID, nic::NODE_LID_LID.mask},
      {nic::RETRY_DELAY, nic::RETRY_DELAY_CYCLES.mask},
      {nic::RETRY_LIMIT, nic::RETRY_LIMIT_LIMIT.mask},
      {nic::GROUP_TIMEOUT, nic::GROUP_TIMEOUT_CYCLES.mask},
      {nic::GROUP_RETRY_LIMIT, nic::GROUP_RETRY_LIMIT_LIMIT.mask},
      // SEND is a pulse and reads 0.
      {MBOX_TX_CTRL, MBOX_TX_CTRL_DST_LID.mask},
      {nic::NET_CFG, nic::NET_CFG_TC.mask},
      {nic::PFC_CFG, nic::PFC_CFG_ENABLE.mask | nic::PFC_CFG_CYC_PER_QUANTUM.mask},
      {nic::SDQ_BASE_LO, nic::SDQ_BASE_LO_ADDR.mask},
      {nic::SDQ_BASE_HI, nic::SDQ_BASE_HI_ADDR.mask},
      {nic::SDQ_SIZE, nic::SDQ_SIZE_ENTRIES.mask},
      {nic::SDQ_PROD, nic::SDQ_PROD_INDEX.mask},
      {nic::CQ_BASE_LO, nic::CQ_BASE_LO_ADDR.mask},
      {nic::CQ_BASE_HI, nic::CQ_BASE_HI_ADDR.mask},
      {nic::CQ_SIZE, nic::CQ_SIZE_ENTRIES.mask},
      {nic::CQ_TAIL, nic::CQ_TAIL_INDEX.mask},
  };
  for (unsigned i = 0; i < kMboxWords; ++i) {
    regs.push_back({mbox_tx_data(i), 0xFFFFFFFFU});
  }
  for (std::size_t w = 0; w < nic::kHdqWindowWords; ++w) {
    regs.push_back(
        {{static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w), "HDQ_WINDOW"}, 0xFFFFFFFFU});
  }
  return regs;
}

std::uint64_t pair64(const std::map<std::uint32_t, std::uint32_t>& m, nic::Reg lo, nic::Reg hi) {
  return (std::uint64_t{m.at(hi.offset)} << 32) | m.at(lo.offset);
}

}  // namespace

// The identity words read over APB are the ones the C header was generated with.
SYNCFAB_TEST(csr, id_matches_header) {
  Bench b(ctx);
  co_await b.reset();
  TB_CHECK_EQ(co_await b.read(nic::ID), nic::kMagic);
  const std::uint32_t version = co_await b.read(nic::VERSION);
  TB_CHECK_EQ(nic::VERSION_MAJOR.get(version), nic::kVersionMajor);
  TB_CHECK_EQ(nic::VERSION_MINOR.get(version), nic::kVersionMinor);
}

// Every software-written register comes out of reset at the RDL's reset value.
SYNCFAB_TEST(csr, reset_values) {
  Bench b(ctx);
  co_await b.reset();
  const std::vector<std::pair<nic::Reg, std::uint32_t>> expect = {
      {nic::SCRATCH, NIC_CSR__SCRATCH__VALUE_reset},
      {nic::CTRL, NIC_CSR__CTRL__ENABLE_reset},
      {nic::INTR_STATUS, 0},
      {nic::INTR_ENABLE, 0},
      {nic::RETRY_DELAY, NIC_CSR__RETRY_DELAY__CYCLES_reset},
      {nic::RETRY_LIMIT, NIC_CSR__RETRY_LIMIT__LIMIT_reset},
      {nic::NODE_LID, NIC_CSR__NODE_LID__LID_reset},
      {nic::GROUP_TIMEOUT, NIC_CSR__GROUP_TIMEOUT__CYCLES_reset},
      {nic::GROUP_RETRY_LIMIT, NIC_CSR__GROUP_RETRY_LIMIT__LIMIT_reset},
      {MBOX_TX_CTRL, NIC_CSR__MBOX_TX_CTRL__DST_LID_reset},
      {MBOX_RX_POP, 0},
      {nic::NET_CFG, nic::NET_CFG_TC.put(NIC_CSR__NET_CFG__TC_reset)},
      {nic::PFC_CFG, nic::PFC_CFG_ENABLE.put(NIC_CSR__PFC_CFG__ENABLE_reset) |
                         nic::PFC_CFG_CYC_PER_QUANTUM.put(NIC_CSR__PFC_CFG__CYC_PER_QUANTUM_reset)},
      {nic::SDQ_BASE_LO, NIC_CSR__SDQ_BASE_LO__ADDR_reset},
      {nic::SDQ_SIZE, NIC_CSR__SDQ_SIZE__ENTRIES_reset},
      {nic::SDQ_PROD, NIC_CSR__SDQ_PROD__INDEX_reset},
      {nic::CQ_TAIL, NIC_CSR__CQ_TAIL__INDEX_reset},
  };
  for (const auto& [reg, value] : expect) {
    TB_CHECK_EQ(co_await b.read(reg), value) << reg.name;
  }
  TB_CHECK_EQ(b.dut.retry_delay_o, NIC_CSR__RETRY_DELAY__CYCLES_reset);
  TB_CHECK_EQ(b.dut.net_cfg_tc_o, NIC_CSR__NET_CFG__TC_reset);
  TB_CHECK_EQ(b.dut.pfc_cfg_enable_o, NIC_CSR__PFC_CFG__ENABLE_reset);
  TB_CHECK_EQ(b.dut.pfc_cfg_cyc_per_quantum_o, NIC_CSR__PFC_CFG__CYC_PER_QUANTUM_reset);
  TB_CHECK_EQ(b.dut.intr_o, 0U);
  TB_CHECK_EQ(b.dut.group_timeout_o, NIC_CSR__GROUP_TIMEOUT__CYCLES_reset);
  TB_CHECK_EQ(b.dut.mbox_tx_send_o, 0U);
  TB_CHECK_EQ(b.dut.mbox_rx_pop_o, 0U);
  for (unsigned i = 0; i < kMboxWords; ++i) {
    TB_CHECK_EQ(co_await b.read(mbox_tx_data(i)), NIC_CSR__MBOX_TX_DATA0__WORD_reset)
        << "MBOX_TX_DATA" << i;
  }
  for (const nic::Reg& c : nic::kCounters) {
    TB_CHECK_EQ(co_await b.read(c), 0U) << c.name;
  }
}

// Random writes (random byte strobes too) and reads of every read/write
// register and the HDQ window against a model; then the hardware side of the
// fields (hwif outputs) must show the model's values.
SYNCFAB_TEST(csr, rw_random) {
  Bench b(ctx);
  co_await b.reset();
  auto& rng = ctx.rng();
  const auto regs = rw_registers();
  std::map<std::uint32_t, std::uint32_t> model;
  for (const auto& r : regs) {
    model[r.reg.offset] = co_await b.read(r.reg);
  }

  std::uniform_int_distribution<std::size_t> pick(0, regs.size() - 1);
  const auto ops = ctx.param("ops", 600);
  for (std::int64_t op = 0; op < ops; ++op) {
    const RwReg& r = regs[pick(rng)];
    if (rng() % 2 == 0) {
      const auto value = static_cast<std::uint32_t>(rng());
      const auto strb = static_cast<std::uint8_t>(rng() % 3 == 0 ? (rng() & 0xF) : 0xF);
      const ApbResult res = co_await b.apb.write(r.reg.offset, value, strb);
      TB_CHECK(!res.error) << "write " << r.reg.name << " at op " << op;
      const std::uint32_t bm = byte_mask(strb);
      auto& m = model[r.reg.offset];
      m = ((m & ~bm) | (value & bm)) & r.mask;
    } else {
      const std::uint32_t got = co_await b.read(r.reg);
      TB_CHECK_EQ(got, model[r.reg.offset])
          << r.reg.name << " at offset " << r.reg.offset << ", op " << op;
    }
  }

  co_await ReadOnly();
  TB_CHECK_EQ(b.dut.sdq_base_o, pair64(model, nic::SDQ_BASE_LO, nic::SDQ_BASE_HI));
  TB_CHECK_EQ(b.dut.cq_base_o, pair64(model, nic::CQ_BASE_LO, nic::CQ_BASE_HI));
  TB_CHECK_EQ(b.dut.sdq_size_o, model[nic::SDQ_SIZE.offset]);
  TB_CHECK_EQ(b.dut.sdq_prod_o, model[nic::SDQ_PROD.offset]);
  TB_CHECK_EQ(b.dut.cq_size_o, model[nic::CQ_SIZE.offset]);
  TB_CHECK_EQ(b.dut.cq_tail_o, model[nic::CQ_TAIL.offset]);
  TB_CHECK_EQ(b.dut.retry_delay_o, model[nic::RETRY_DELAY.offset]);
  TB_CHECK_EQ(b.dut.retry_limit_o, model[nic::RETRY_LIMIT.offset]);
  TB_CHECK_EQ(b.dut.net_cfg_tc_o, nic::NET_CFG_TC.get(model[nic::NET_CFG.offset]));
  TB_CHECK_EQ(b.dut.pfc_cfg_enable_o, nic::PFC_CFG_ENABLE.get(model[nic::PFC_CFG.offset]));
  TB_CHECK_EQ(b.dut.pfc_cfg_cyc_per_quantum_o,
              nic::PFC_CFG_CYC_PER_QUANTUM.get(model[nic::PFC_CFG.offset]));
  TB_CHECK_EQ(b.dut.ctrl_enable_o, model[nic::CTRL.offset] & nic::CTRL_ENABLE.mask);
  TB_CHECK_EQ(b.dut.node_lid_o, model[nic::NODE_LID.offset]);
  TB_CHECK_EQ(b.dut.group_timeout_o, model[nic::GROUP_TIMEOUT.offset]);
  TB_CHECK_EQ(b.dut.group_retry_limit_o, model[nic::GROUP_RETRY_LIMIT.offset]);
  TB_CHECK_EQ(b.dut.mbox_tx_dst_lid_o, MBOX_TX_CTRL_DST_LID.get(model[MBOX_TX_CTRL.offset]));
  for (unsigned i = 0; i < kMboxWords; ++i) {
    TB_CHECK_EQ(b.dut.mbox_tx_data_o[i], model[mbox_tx_data(i).offset]) << "mbox_tx_data_o " << i;
  }
  for (std::size_t w = 0; w < nic::kHdqWindowWords; ++w) {
    const auto off = static_cast<std::uint32_t>(nic::kHdqWindowOffset + 4 * w);
    TB_CHECK_EQ(b.dut.hdq_window_o[w], model[off]) << "hdq_window_o word " << w;
  }
}

// Read-only registers show what the hardware drives and ignore writes; a
// write to a register without writable fields answers PSLVERR.
SYNCFAB_TEST(csr, ro_ignore_writes) {
  Bench b(ctx);
  co_await b.reset();
  auto& rng = ctx.rng();
  auto byte = [&rng] { return static_cast<std::uint8_t>(rng()); };
  auto half = [&rng] { return static_cast<std::uint16_t>(rng()); };
  const auto rounds = ctx.param("rounds", 8);
  for (std::int64_t round = 0; round < rounds; ++round) {
    b.dut.hw_cfg_num_ctx_i = byte();
    b.dut.hw_cfg_k_max_i = byte();
    b.dut.hw_cfg_max_rounds_i = byte();
    b.dut.hw_cfg_hdq_depth_i = byte();
    b.dut.status_busy_i = rng() & 1U;
    b.dut.status_resetting_i = rng() & 1U;
    b.dut.status_tx_paused_i = rng() & 1U;
    b.dut.status_active_ctx_i = byte();
    b.dut.sdq_cons_i = half();
    b.dut.cq_head_i = half();
    b.dut.hdq_level_i = byte();
    b.dut.hdq_full_i = rng() & 1U;
    b.dut.hw_cfg2_max_members_i = half();
    b.dut.hw_cfg2_mbox_depth_i = byte();
    b.dut.mbox_status_tx_busy_i = rng() & 1U;
    b.dut.mbox_status_rx_level_i = byte();
    for (unsigned i = 0; i < kMboxWords; ++i) {
      b.dut.mbox_rx_data_i[i] = static_cast<std::uint32_t>(rng());
    }
    b.dut.mbox_rx_src_i = half();

    const std::vector<std::pair<nic::Reg, std::uint32_t>> ro = {
        {nic::ID, nic::ID_MAGIC.put(nic::kMagic)},
        {nic::VERSION,
         nic::VERSION_MAJOR.put(nic::kVersionMajor) | nic::VERSION_MINOR.put(nic::kVersionMinor)},
        {nic::HW_CFG, nic::HW_CFG_NUM_CTX.put(b.dut.hw_cfg_num_ctx_i) |
                          nic::HW_CFG_K_MAX.put(b.dut.hw_cfg_k_max_i) |
                          nic::HW_CFG_MAX_ROUNDS.put(b.dut.hw_cfg_max_rounds_i) |
                          nic::HW_CFG_HDQ_DEPTH.put(b.dut.hw_cfg_hdq_depth_i)},
        {nic::STATUS, nic::STATUS_BUSY.put(b.dut.status_busy_i) |
                          nic::STATUS_RESETTING.put(b.dut.status_resetting_i) |
                          nic::STATUS_TX_PAUSED.put(b.dut.status_tx_paused_i) |
                          nic::STATUS_ACTIVE_CTX.put(b.dut.status_active_ctx_i)},
        {nic::SDQ_CONS, nic::SDQ_CONS_INDEX.put(b.dut.sdq_cons_i)},
        {nic::CQ_HEAD, nic::CQ_HEAD_INDEX.put(b.dut.cq_head_i)},
        {nic::HW_CFG2, nic::HW_CFG2_MAX_MEMBERS.put(b.dut.hw_cfg2_max_members_i) |
                           HW_CFG2_MBOX_DEPTH.put(b.dut.hw_cfg2_mbox_depth_i)},
        {MBOX_STATUS, MBOX_STATUS_TX_BUSY.put(b.dut.mbox_status_tx_busy_i) |
                          MBOX_STATUS_RX_LEVEL.put(b.dut.mbox_status_rx_level_i)},
        {MBOX_RX_SRC, MBOX_RX_SRC_SRC_LID.put(b.dut.mbox_rx_src_i)},
        {nic::CNT_NOTIF_SENT, 0},
        {nic::CNT_DUP, 0},
        {nic::CNT_PAUSE_RX, 0},
        {nic::CNT_GROUP_RETRY, 0},
        {nic::kCounters.back(), 0},
    };
    std::vector<std::pair<nic::Reg, std::uint32_t>> ro_all = ro;
    for (unsigned i = 0; i < kMboxWords; ++i) {
      ro_all.emplace_back(mbox_rx_data(i), b.dut.mbox_rx_data_i[i]);
    }
    for (const auto& [reg, expect] : ro_all) {
      TB_CHECK_EQ(co_await b.read(reg), expect) << reg.name << " before the write";
      const ApbResult w = co_await b.apb.write(reg.offset, static_cast<std::uint32_t>(rng()));
      TB_CHECK(w.error) << "write to read-only " << reg.name << " did not answer PSLVERR";
      TB_CHECK_EQ(co_await b.read(reg), expect) << reg.name << " changed by a write";
    }

    // HDQ_POST mixes a write-only pulse with read-only status: writes are
    // legal, LEVEL/FULL ignore them, POST=0 posts nothing.
    const std::uint32_t status =
        nic::HDQ_POST_LEVEL.put(b.dut.hdq_level_i) | nic::HDQ_POST_FULL.put(b.dut.hdq_full_i);
    TB_CHECK_EQ(co_await b.read(nic::HDQ_POST), status);
    co_await b.write(nic::HDQ_POST, static_cast<std::uint32_t>(rng()) & ~nic::HDQ_POST_POST.mask);
    TB_CHECK_EQ(co_await b.read(nic::HDQ_POST), status);
  }
}

// INTR_STATUS: hardware sets a cause with a one-cycle pulse, it stays set,
// software clears it by writing 1 (writing 0 does nothing); the line is the
// OR of the enabled causes.
SYNCFAB_TEST(csr, intr_w1c) {
  Bench b(ctx);
  co_await b.reset();
  auto pulse = [&b](std::uint32_t bits) -> Task<> {
    b.dut.intr_set_i = bits;
    co_await RisingEdge(b.clk);
    b.dut.intr_set_i = 0;
    co_await RisingEdge(b.clk);
  };
  for (const nic::Field& cause : kCauses) {
    co_await pulse(cause_set_bit(cause));
    TB_CHECK_EQ(co_await b.read(nic::INTR_STATUS), cause.mask) << cause.name << " not sticky";
    TB_CHECK_EQ(b.dut.intr_o, 0U) << cause.name << " raised the line while disabled";
    co_await b.write(nic::INTR_ENABLE, cause.mask);
    co_await ReadOnly();
    TB_CHECK_EQ(b.dut.intr_o, 1U) << cause.name << " enabled but the line is low";
    co_await b.write(nic::INTR_STATUS, 0);
    co_await b.write(nic::INTR_STATUS, ~cause.mask);
    TB_CHECK_EQ(co_await b.read(nic::INTR_STATUS), cause.mask)
        << "writing 0 to " << cause.name << " cleared it";
    co_await b.write(nic::INTR_STATUS, cause.mask);
    TB_CHECK_EQ(co_await b.read(nic::INTR_STATUS), 0U) << "W1C did not clear " << cause.name;
    co_await ReadOnly();
    TB_CHECK_EQ(b.dut.intr_o, 0U) << "line still high after clearing " << cause.name;
    co_await b.write(nic::INTR_ENABLE, 0);
  }

  // A cause the hardware sets in the very cycle software's write-1-to-clear
  // lands must survive (RDL precedence = hw): both for another cause and for
  // the cause being cleared.
  for (const bool same : {false, true}) {
    co_await pulse(cause_set_bit(nic::INTR_STATUS_DONE));
    const nic::Field& raced = same ? nic::INTR_STATUS_DONE : nic::INTR_STATUS_ERROR;
    TaskHandle w = ctx.sim().start_soon(
        [](Bench& bb) -> Task<> {
          co_await bb.write(nic::INTR_STATUS, nic::INTR_STATUS_DONE.mask);
        }(b),
        "w1c");
    co_await RisingEdge(b.clk);  // end of the setup phase: the access phase begins
    b.dut.intr_set_i = cause_set_bit(raced);
    co_await ReadOnly();
    TB_CHECK_EQ(b.dut.pready_o, 1U) << "the write does not land in this cycle; race not tested";
    co_await RisingEdge(b.clk);
    b.dut.intr_set_i = 0;
    co_await w;
    const std::uint32_t expect = raced.mask;  // DONE was cleared unless it was raced
    TB_CHECK_EQ(co_await b.read(nic::INTR_STATUS), expect)
        << "hardware set of " << raced.name << " during a W1C write";
    co_await b.write(nic::INTR_STATUS, 0x1F);
  }
}

// The post pulse, the doorbell, the CQ tail notification and the CTRL pulses
// reach the hardware as exactly one cycle per write.
SYNCFAB_TEST(csr, pulses_one_cycle) {
  Bench b(ctx);
  co_await b.reset();
  auto& rng = ctx.rng();

  struct Pulse {
    const char* name;
    CData* pin;
    unsigned cycles = 0;   // cycles seen high
    unsigned longest = 0;  // longest run of consecutive high cycles
    unsigned run = 0;
  };
  constexpr std::size_t kPulses = 7;
  std::array<Pulse, kPulses> pulses = {{{"hdq_post_o", &b.dut.hdq_post_o},
                                        {"sdq_doorbell_o", &b.dut.sdq_doorbell_o},
                                        {"cq_tail_written_o", &b.dut.cq_tail_written_o},
                                        {"ctrl_soft_reset_o", &b.dut.ctrl_soft_reset_o},
                                        {"ctrl_cnt_clear_o", &b.dut.ctrl_cnt_clear_o},
                                        {"mbox_tx_send_o", &b.dut.mbox_tx_send_o},
                                        {"mbox_rx_pop_o", &b.dut.mbox_rx_pop_o}}};
  bool stop = false;
  std::vector<std::uint32_t> window_at_post;  // hdq_window_o word 0 at each post pulse
  std::vector<std::uint32_t> prod_after_doorbell;
  bool doorbell_prev = false;
  TaskHandle mon = ctx.sim().start_soon(
      [](Bench& bb, std::array<Pulse, kPulses>& ps, bool& stop_, std::vector<std::uint32_t>& win,
         std::vector<std::uint32_t>& prod, bool& db_prev) -> Task<> {
        while (!stop_) {
          co_await ReadOnly();
          for (auto& p : ps) {
            if (*p.pin != 0) {
              ++p.cycles;
              ++p.run;
              p.longest = std::max(p.longest, p.run);
            } else {
              p.run = 0;
            }
          }
          if (bb.dut.hdq_post_o != 0) {
            win.push_back(bb.dut.hdq_window_o[0]);
          }
          // The doorbell pulses in the cycle the write lands; the new index
          // is in the register from the next cycle on.
          if (db_prev) {
            prod.push_back(bb.dut.sdq_prod_o);
          }
          db_prev = bb.dut.sdq_doorbell_o != 0;
          co_await RisingEdge(bb.clk);
        }
      }(b, pulses, stop, window_at_post, prod_after_doorbell, doorbell_prev),
      "pulse monitor");

  std::array<unsigned, kPulses> writes{};
  std::vector<std::uint32_t> posted_word0, rung;
  const auto ops = ctx.param("ops", 60);
  for (std::int64_t op = 0; op < ops; ++op) {
    switch (rng() % 8) {
      case 0: {  // a descriptor word 0, then post it
        const auto word0 = static_cast<std::uint32_t>(rng());
        co_await b.apb.write(nic::kHdqWindowOffset, word0);
        co_await b.write(nic::HDQ_POST, nic::HDQ_POST_POST.mask);
        posted_word0.push_back(word0);
        ++writes[0];
        break;
      }
      case 1: {
        const auto idx = static_cast<std::uint32_t>(rng() & nic::SDQ_PROD_INDEX.mask);
        co_await b.write(nic::SDQ_PROD, idx);
        rung.push_back(idx);
        ++writes[1];
        break;
      }
      case 2:
        co_await b.write(nic::CQ_TAIL, static_cast<std::uint32_t>(rng() & nic::CQ_TAIL_INDEX.mask));
        ++writes[2];
        break;
      case 3:
        co_await b.write(nic::CTRL, nic::CTRL_SOFT_RESET.mask);
        ++writes[3];
        break;
      case 4:
        co_await b.write(nic::CTRL, nic::CTRL_CNT_CLEAR.mask);
        ++writes[4];
        break;
      case 5:
        co_await b.write(MBOX_TX_CTRL,
                         MBOX_TX_CTRL_SEND.mask | static_cast<std::uint32_t>(rng() & 0xFFFFU));
        ++writes[5];
        break;
      case 6:
        co_await b.write(MBOX_RX_POP, MBOX_RX_POP_POP.mask);
        ++writes[6];
        break;
      default:  // writes that must not pulse anything
        co_await b.write(nic::HDQ_POST, 0);
        co_await b.write(nic::CTRL, nic::CTRL_ENABLE.mask);
        co_await b.write(nic::SCRATCH, static_cast<std::uint32_t>(rng()));
        co_await b.write(MBOX_TX_CTRL, static_cast<std::uint32_t>(rng() & 0xFFFFU));
        co_await b.write(MBOX_RX_POP, 0);
        break;
    }
    // Back-to-back accesses sometimes, idle gaps other times.
    co_await ClockCycles(b.clk, rng() % 3);
  }
  co_await ClockCycles(b.clk, 3);
  stop = true;
  co_await mon;

  for (std::size_t i = 0; i < pulses.size(); ++i) {
    TB_CHECK_EQ(pulses[i].cycles, writes[i]) << pulses[i].name << ": high cycles vs writes";
    TB_CHECK(pulses[i].longest <= 1U)
        << pulses[i].name << " stayed high for " << pulses[i].longest << " cycles";
  }
  TB_CHECK(window_at_post == posted_word0) << "hdq_window_o word 0 at the post pulse";
  TB_CHECK(prod_after_doorbell == rung) << "SDQ_PROD after the doorbell";
}

// Counters count hardware increments, saturate (not tested: 2^32 events) and
// clear all at once on CTRL.CNT_CLEAR.
SYNCFAB_TEST(csr, counters) {
  Bench b(ctx);
  co_await b.reset();
  auto& rng = ctx.rng();
  std::array<std::uint32_t, std::size(nic::kCounters)> expect{};
  const auto cycles = ctx.param("cycles", 500);
  for (std::int64_t c = 0; c < cycles; ++c) {
    const auto bits = static_cast<std::uint32_t>(rng() & ((1U << expect.size()) - 1U));
    b.dut.cnt_incr_i = static_cast<IData>(bits);
    for (std::size_t i = 0; i < expect.size(); ++i) {
      expect[i] += (bits >> i) & 1U;
    }
    co_await RisingEdge(b.clk);
  }
  b.dut.cnt_incr_i = 0;
  for (std::size_t i = 0; i < expect.size(); ++i) {
    TB_CHECK_EQ(co_await b.read(nic::kCounters[i]), expect[i]) << nic::kCounters[i].name;
  }
  co_await b.write(nic::CTRL, nic::CTRL_CNT_CLEAR.mask);
  for (const nic::Reg& c : nic::kCounters) {
    TB_CHECK_EQ(co_await b.read(c), 0U) << c.name << " after CNT_CLEAR";
  }
}

// Addresses that map to nothing answer PSLVERR, for reads and writes, and a
// write there changes no register.
SYNCFAB_TEST(csr, unmapped_pslverr) {
  Bench b(ctx);
  co_await b.reset();
  auto& rng = ctx.rng();
  const auto scratch = static_cast<std::uint32_t>(rng());
  co_await b.write(nic::SCRATCH, scratch);
  const auto end = static_cast<std::uint32_t>(nic::kBlockBytes);
  const std::vector<std::uint32_t> holes = {nic::INTR_ENABLE.offset + 4,
                                            nic::INTR_ENABLE.offset + 8,
                                            nic::GROUP_RETRY_LIMIT.offset + 4,
                                            nic::CQ_TAIL.offset + 4,
                                            nic::HDQ_POST.offset + 4,
                                            nic::CNT_NOTIF_SENT.offset - 4,
                                            nic::kCounters.back().offset + 4,
                                            MBOX_TX_DATA0.offset - 4,
                                            MBOX_STATUS.offset + 4,
                                            MBOX_RX_DATA0.offset - 4,
                                            MBOX_RX_POP.offset + 4,
                                            nic::kHdqWindowOffset - 4,
                                            end,
                                            end + 4,
                                            kCsrWindow - 4};
  for (const std::uint32_t a : holes) {
    const ApbResult r = co_await b.apb.read(a);
    TB_CHECK(r.error) << "read of unmapped offset " << a << " did not answer PSLVERR";
    const ApbResult w = co_await b.apb.write(a, static_cast<std::uint32_t>(rng()));
    TB_CHECK(w.error) << "write of unmapped offset " << a << " did not answer PSLVERR";
  }
  TB_CHECK_EQ(co_await b.read(nic::SCRATCH), scratch);
  TB_CHECK_EQ(co_await b.read(nic::ID), nic::kMagic);
}

// An unaligned address is a bus error (docs/barrier-protocol.md section 8):
// PSLVERR for reads and writes at each of the three byte offsets past a
// register, PRDATA 0, and nothing written: SCRATCH, a set INTR_STATUS cause
// (write 1 to clear) and an HDQ window word keep their values, and no
// single-pulse control fires.
SYNCFAB_TEST(csr, unaligned_pslverr) {
  Bench b(ctx);
  co_await b.reset();
  auto& rng = ctx.rng();
  const auto scratch = static_cast<std::uint32_t>(rng());
  const auto word0 = static_cast<std::uint32_t>(rng());
  co_await b.write(nic::SCRATCH, scratch);
  const ApbResult w0 = co_await b.apb.write(nic::kHdqWindowOffset, word0);
  TB_CHECK(!w0.error) << "aligned write of HDQ window word 0";
  b.dut.intr_set_i = cause_set_bit(nic::INTR_STATUS_DONE);
  co_await RisingEdge(b.clk);
  b.dut.intr_set_i = 0;
  unsigned pulses = 0;
  bool stop = false;
  TaskHandle mon = ctx.sim().start_soon(
      [](Bench& bb, unsigned& n, bool& stop_) -> Task<> {
        while (!stop_) {
          co_await ReadOnly();
          n += static_cast<unsigned>(bb.dut.hdq_post_o != 0) +
               static_cast<unsigned>(bb.dut.ctrl_soft_reset_o != 0) +
               static_cast<unsigned>(bb.dut.ctrl_cnt_clear_o != 0);
          co_await RisingEdge(bb.clk);
        }
      }(b, pulses, stop),
      "pulse monitor");
  const std::vector<std::uint32_t> regs = {nic::SCRATCH.offset, nic::INTR_STATUS.offset,
                                           nic::CTRL.offset, nic::HDQ_POST.offset,
                                           static_cast<std::uint32_t>(nic::kHdqWindowOffset)};
  for (const std::uint32_t reg : regs) {
    for (std::uint32_t lsb = 1; lsb < 4; ++lsb) {
      const std::uint32_t a = reg + lsb;
      const ApbResult w = co_await b.apb.write(a, 0xFFFF'FFFFU);
      TB_CHECK(w.error) << "unaligned write of offset " << a << " did not answer PSLVERR";
      const ApbResult r = co_await b.apb.read(a);
      TB_CHECK(r.error) << "unaligned read of offset " << a << " did not answer PSLVERR";
      TB_CHECK_EQ(r.data, 0U) << "unaligned read of offset " << a << ": PRDATA";
    }
  }
  co_await ClockCycles(b.clk, 2);
  stop = true;
  co_await mon;
  TB_CHECK_EQ(co_await b.read(nic::SCRATCH), scratch) << "SCRATCH written unaligned";
  TB_CHECK_EQ(co_await b.read(nic::INTR_STATUS), nic::INTR_STATUS_DONE.mask)
      << "INTR_STATUS.DONE cleared by an unaligned write";
  TB_CHECK_EQ(b.dut.hdq_window_o[0], word0) << "HDQ window word 0 written unaligned";
  TB_CHECK_EQ(b.dut.ctrl_enable_o, 0U) << "CTRL.ENABLE written unaligned";
  TB_CHECK_EQ(pulses, 0U) << "a single-pulse control fired on an unaligned write";
}

// The driver's identity check and register layer, unchanged, on the RTL.
SYNCFAB_TEST(csr, rtl_device_identity) {
  Bench b(ctx);
  co_await b.reset();
  hw::HostMemory memory(0x8000'0000, 4096);
  drv::RtlDevice dev(
      ctx.sim(), b.clk, b.apb, [&b] { return b.dut.intr_o != 0; }, memory, kCsrWindow);

  const drv::Identity id = drv::check_identity(dev);
  TB_CHECK(id == drv::expected_identity()) << drv::describe(id);

  hw::Csr csr(dev);
  const auto v = static_cast<std::uint32_t>(ctx.rng()());
  csr.write(nic::SCRATCH, v);
  TB_CHECK_EQ(csr.read(nic::SCRATCH), v);
  csr.write64(nic::SDQ_BASE_LO, nic::SDQ_BASE_HI, 0x0000'00AB'CDEF'0040ULL);
  co_await ReadOnly();
  TB_CHECK_EQ(b.dut.sdq_base_o, 0x0000'00AB'CDEF'0040ULL);

  // Refused accesses become BusError naming the offset.
  for (const std::uint32_t bad : {nic::INTR_ENABLE.offset + 4, kCsrWindow, 2U}) {
    std::string msg;
    try {
      static_cast<void>(dev.read32(bad));
    } catch (const hw::BusError& e) {
      msg = e.what();
    }
    TB_CHECK(!msg.empty()) << "read32 at " << bad << " did not throw BusError";
    TB_CHECK(msg.find("offset 0x") != std::string::npos) << msg;
  }
  bool threw = false;
  try {
    dev.write32(nic::ID.offset, 0);
  } catch (const hw::BusError&) {
    threw = true;
  }
  TB_CHECK(threw) << "write32 to the read-only ID did not throw BusError";
}

// wait_interrupt in simulated time: returns when the line rises, or false
// after the timeout.
SYNCFAB_TEST(csr, rtl_device_interrupt) {
  Bench b(ctx);
  co_await b.reset();
  hw::HostMemory memory(0x8000'0000, 4096);
  drv::RtlDevice dev(
      ctx.sim(), b.clk, b.apb, [&b] { return b.dut.intr_o != 0; }, memory, kCsrWindow);
  hw::Csr csr(dev);
  csr.write(nic::INTR_ENABLE, {{nic::INTR_ENABLE_DONE, 1}});

  const std::uint64_t delay = 20 + ctx.rng()() % 50;
  const SimTime start = ctx.sim().now();
  ctx.sim().start_soon(
      [](Bench& bb, std::uint64_t cycles) -> Task<> {
        co_await ClockCycles(bb.clk, cycles);
        bb.dut.intr_set_i = cause_set_bit(nic::INTR_STATUS_DONE);
        co_await RisingEdge(bb.clk);
        bb.dut.intr_set_i = 0;
      }(b, delay),
      "raise DONE");
  TB_CHECK(dev.wait_interrupt(std::chrono::microseconds(10))) << "no interrupt within 10 us";
  const SimTime waited = ctx.sim().now() - start;
  TB_CHECK(waited >= delay * kClkPeriod && waited <= (delay + 3) * kClkPeriod)
      << "interrupt seen after " << format_time(waited) << ", raised after " << delay << " cycles";
  // A polling driver asks again at once, with no CSR access in between:
  // the line is still high, and the second wait starts in the ReadOnly
  // phase the first one returned in.
  TB_CHECK(dev.wait_interrupt(std::chrono::microseconds(1))) << "second wait missed the line";
  TB_CHECK(dev.wait_interrupt(std::chrono::nanoseconds(0))) << "third wait missed the line";
  TB_CHECK_EQ(csr.read(nic::INTR_STATUS_DONE), 1U);
  csr.write(nic::INTR_STATUS, {{nic::INTR_STATUS_DONE, 1}});

  const SimTime before = ctx.sim().now();
  TB_CHECK(!dev.wait_interrupt(std::chrono::microseconds(1))) << "interrupt after clearing";
  TB_CHECK(ctx.sim().now() - before >= to_ps(1, Unit::us)) << "timed out early";
}
