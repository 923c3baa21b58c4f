// The engine's CSR port: register semantics of rtl/nic/nic_csr.rdl, offsets
// and field positions from the generated register map (nic_regs.hpp).
#include <cstdio>
#include <string>

#include <syncfab/hw/dcqcn_regs.hpp>
#include <syncfab/hw/errors.hpp>
#include <syncfab/hw/nic_regs.hpp>

#include "syncfab/model/barrier_engine.hpp"
#include "syncfab/model/nic_group_regs.hpp"

namespace syncfab::model {

namespace nic = hw::nic;

namespace {

std::string hex32(std::uint32_t v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "0x%03x", v);
  return buf;
}

[[noreturn]] void bus_error(std::uint32_t offset, const char* what) {
  throw hw::BusError("model CSR " + std::string(what) + " at offset " + hex32(offset) +
                     ": PSLVERR (unmapped, unaligned or not " + what + "able)");
}

bool in_window(std::uint32_t offset) {
  return offset >= nic::kHdqWindowOffset &&
         offset < nic::kHdqWindowOffset + nic::kHdqWindowWords * 4;
}

}  // namespace

std::uint32_t BarrierEngine::status_reg() const {
  unsigned active = 0;
  for (const auto& c : ctxs_) {
    active += c.active ? 1U : 0U;
  }
  // BUSY: queued, running or waiting to complete, a response queued or a
  // barrier header on tx (parked notifications do not count; the mailbox
  // has its own MBOX_STATUS.TX_BUSY).
  const bool busy = active != 0 || !hdq_.empty() || of_busy_ != 0 || !cmpl_q_.empty() ||
                    (enable_ && sdq_pending()) || !resp_q_.empty() ||
                    (tx_hold_.has_value() && !tx_hold_->mgmt && !tx_hold_->cnp && !tx_hold_->data);
  return nic::STATUS_BUSY.put(busy ? 1 : 0) | nic::STATUS_TX_PAUSED.put(tx_paused() ? 1 : 0) |
         nic::STATUS_ACTIVE_CTX.put(active);
}

std::uint32_t BarrierEngine::hdq_post_reg() const {
  return nic::HDQ_POST_LEVEL.put(static_cast<std::uint32_t>(hdq_.size())) |
         nic::HDQ_POST_FULL.put(hdq_.size() >= cfg_.hdq_depth ? 1 : 0);
}

std::uint32_t BarrierEngine::csr_read(std::uint32_t offset) {
  if (offset % 4 != 0) {
    bus_error(offset, "read");
  }
  if (offset >= fmt::kDcqcnCsrBase) {
    if (!dp_ || offset >= fmt::kDcqcnCsrBase + hw::dcqcn::kBlockBytes) {
      bus_error(offset, "read");
    }
    return dp_->csr_read(offset - fmt::kDcqcnCsrBase);
  }
  if (in_window(offset)) {
    return hdq_window_[(offset - nic::kHdqWindowOffset) / 4];
  }
  if (std::uint32_t v = 0; mbox_csr_read(offset, v)) {
    return v;
  }
  switch (offset) {
    case nic::ID.offset:
      return nic::ID_MAGIC.put(nic::kMagic);
    case nic::VERSION.offset:
      return nic::VERSION_MAJOR.put(nic::kVersionMajor) |
             nic::VERSION_MINOR.put(nic::kVersionMinor);
    case nic::HW_CFG.offset:
      return nic::HW_CFG_NUM_CTX.put(cfg_.num_ctx & 0xFFU) | nic::HW_CFG_K_MAX.put(fmt::kKMax) |
             nic::HW_CFG_MAX_ROUNDS.put(fmt::kMaxRounds) |
             nic::HW_CFG_HDQ_DEPTH.put(cfg_.hdq_depth);
    case group_regs::kHwCfg2.offset:
      return group_regs::kHwCfg2MaxMembers.put(cfg_.max_members) |
             nic::HW_CFG2_MBOX_DEPTH.put(cfg_.mbox_depth);
    case group_regs::kGroupTimeout.offset:
      return group_timeout_;
    case group_regs::kGroupRetryLimit.offset:
      return group_retry_limit_;
    case nic::SCRATCH.offset:
      return scratch_;
    case nic::NODE_LID.offset:
      return nic::NODE_LID_LID.put(cfg_.lid);
    case nic::CTRL.offset:
      return nic::CTRL_ENABLE.put(enable_ ? 1 : 0);  // the pulses read 0
    case nic::STATUS.offset:
      return status_reg();
    case nic::INTR_STATUS.offset:
      return intr_status_;
    case nic::INTR_ENABLE.offset:
      return intr_enable_;
    case nic::RETRY_DELAY.offset:
      return retry_delay_;
    case nic::RETRY_LIMIT.offset:
      return retry_limit_;
    case nic::NET_CFG.offset:
      return nic::NET_CFG_TC.put(net_tc_);
    case nic::PFC_CFG.offset:
      return nic::PFC_CFG_ENABLE.put(pfc_enable_) |
             nic::PFC_CFG_CYC_PER_QUANTUM.put(pfc_cyc_per_q_);
    case nic::SDQ_BASE_LO.offset:
      return static_cast<std::uint32_t>(sdq_base_);
    case nic::SDQ_BASE_HI.offset:
      return static_cast<std::uint32_t>(sdq_base_ >> 32);
    case nic::SDQ_SIZE.offset:
      return sdq_size_;
    case nic::SDQ_PROD.offset:
      return sdq_prod_;
    case nic::SDQ_CONS.offset:
      return sdq_cons_;
    case nic::CQ_BASE_LO.offset:
      return static_cast<std::uint32_t>(cq_base_);
    case nic::CQ_BASE_HI.offset:
      return static_cast<std::uint32_t>(cq_base_ >> 32);
    case nic::CQ_SIZE.offset:
      return cq_size_;
    case nic::CQ_HEAD.offset:
      return cq_head_;
    case nic::CQ_TAIL.offset:
      return cq_tail_;
    case nic::HDQ_POST.offset:
      return hdq_post_reg();
    default:
      break;
  }
  for (unsigned i = 0; i < kNumCounters; ++i) {
    if (offset == nic::kCounters[i].offset) {
      return counters_[i];
    }
  }
  bus_error(offset, "read");
}

void BarrierEngine::csr_write(std::uint32_t offset, std::uint32_t value) {
  if (offset % 4 != 0) {
    bus_error(offset, "write");
  }
  if (offset >= fmt::kDcqcnCsrBase) {
    if (!dp_ || offset >= fmt::kDcqcnCsrBase + hw::dcqcn::kBlockBytes) {
      bus_error(offset, "write");
    }
    dp_->csr_write(offset - fmt::kDcqcnCsrBase, value, cfg_.lid);
    return;
  }
  if (in_window(offset)) {
    hdq_window_[(offset - nic::kHdqWindowOffset) / 4] = value;
    return;
  }
  if (mbox_csr_write(offset, value)) {
    return;
  }
  switch (offset) {
    case nic::SCRATCH.offset:
      scratch_ = value;
      return;
    case nic::NODE_LID.offset:
      // The model starts with EngineConfig::lid in NODE_LID (the RTL with 0,
      // LID_NONE, until software writes it); writing it renames the node.
      cfg_.lid = static_cast<std::uint16_t>(nic::NODE_LID_LID.get(value));
      return;
    case nic::CTRL.offset:
      enable_ = nic::CTRL_ENABLE.get(value) != 0;
      if (nic::CTRL_SOFT_RESET.get(value) != 0) {
        soft_reset();
      }
      if (nic::CTRL_CNT_CLEAR.get(value) != 0) {
        counters_.fill(0);
      }
      return;
    case nic::INTR_STATUS.offset:
      intr_status_ &= ~value;  // write 1 to clear
      return;
    case nic::INTR_ENABLE.offset:
      intr_enable_ = value & (nic::INTR_ENABLE_DONE.mask | nic::INTR_ENABLE_ERROR.mask |
                              nic::INTR_ENABLE_HDQ_OVERFLOW.mask | nic::INTR_ENABLE_DMA_ERROR.mask |
                              nic::INTR_ENABLE_MGMT_RX.mask);
      return;
    case nic::RETRY_DELAY.offset:
      retry_delay_ = value;
      return;
    case nic::RETRY_LIMIT.offset:
      retry_limit_ = nic::RETRY_LIMIT_LIMIT.get(value);
      return;
    case group_regs::kGroupTimeout.offset:
      // Read when an arrival leaves: a timeout already running keeps its end.
      group_timeout_ = group_regs::kGroupTimeoutCycles.get(value);
      return;
    case group_regs::kGroupRetryLimit.offset:
      group_retry_limit_ = group_regs::kGroupRetryLimitLimit.get(value);
      return;
    case nic::NET_CFG.offset:
      // The prio stamped on every header from the next cycle on; a pause
      // already in force on the new class stops it (pfc_rx keeps every
      // priority's timer).
      net_tc_ = nic::NET_CFG_TC.get(value);
      return;
    case nic::PFC_CFG.offset:
      pfc_enable_ = nic::PFC_CFG_ENABLE.get(value);
      pfc_cyc_per_q_ = nic::PFC_CFG_CYC_PER_QUANTUM.get(value);
      return;
    case nic::SDQ_BASE_LO.offset:
      sdq_base_ = (sdq_base_ & ~0xFFFF'FFFFULL) | value;
      return;
    case nic::SDQ_BASE_HI.offset:
      sdq_base_ = (sdq_base_ & 0xFFFF'FFFFULL) | (std::uint64_t{value} << 32);
      return;
    case nic::SDQ_SIZE.offset:
      sdq_size_ = nic::SDQ_SIZE_ENTRIES.get(value);
      return;
    case nic::SDQ_PROD.offset:
      sdq_prod_ = nic::SDQ_PROD_INDEX.get(value);
      return;
    case nic::CQ_BASE_LO.offset:
      cq_base_ = (cq_base_ & ~0xFFFF'FFFFULL) | value;
      return;
    case nic::CQ_BASE_HI.offset:
      cq_base_ = (cq_base_ & 0xFFFF'FFFFULL) | (std::uint64_t{value} << 32);
      return;
    case nic::CQ_SIZE.offset:
      cq_size_ = nic::CQ_SIZE_ENTRIES.get(value);
      return;
    case nic::CQ_TAIL.offset:
      cq_tail_ = nic::CQ_TAIL_INDEX.get(value);
      return;
    case nic::HDQ_POST.offset:
      if (nic::HDQ_POST_POST.get(value) != 0) {
        if (hdq_.size() >= cfg_.hdq_depth) {
          intr_status_ |= nic::INTR_STATUS_HDQ_OVERFLOW.mask;
          trace("of.hdq_overflow");
        } else {
          fmt::BarrierDesc::Bytes image{};
          for (std::size_t b = 0; b < image.size(); ++b) {
            image[b] = static_cast<std::uint8_t>(hdq_window_[b / 4] >> (8 * (b % 4)));
          }
          hdq_.emplace_back(image);
          trace("of.hdq_post level=" + std::to_string(hdq_.size()));
        }
      }
      return;
    default:
      break;
  }
  // Read-only registers (ID, VERSION, HW_CFG, HW_CFG2, STATUS, SDQ_CONS, CQ_HEAD,
  // counters, MBOX_STATUS, MBOX_RX_DATA0..7, MBOX_RX_SRC) and unmapped offsets: PSLVERR, as the
  // RTL's --err-if-bad-rw.
  bus_error(offset, "write");
}

}  // namespace syncfab::model
