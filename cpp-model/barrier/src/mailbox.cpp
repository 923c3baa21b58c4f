// The NIC's management mailbox (docs/group-protocol.md §1): one MGMT packet
// sent per MBOX_TX_CTRL.SEND, a FIFO of received datagrams read through
// MBOX_RX_*. It is not the engine's: CTRL.ENABLE does not stop it; a soft
// reset empties the FIFO and abandons a send whose header has not left.
#include <algorithm>
#include <cstdio>
#include <string>

#include <syncfab/hw/nic_regs.hpp>

#include "syncfab/model/barrier_engine.hpp"

namespace syncfab::model {

namespace nic = hw::nic;

namespace {

static_assert(fmt::kMgmtFlits >= 2, "a MGMT packet is a header and its payload");
static_assert(fmt::MgmtMsg::kSizeBytes == (fmt::kMgmtFlits - 1) * kFlitBytes,
              "one mgmt_msg fills a MGMT packet's payload flits");
static_assert(fmt::MgmtMsg::kSizeBytes == nic::kMboxWords * 4, "the mailbox holds one mgmt_msg");

std::string hex16(std::uint16_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

// The word index of a MBOX_TX_DATAi / MBOX_RX_DATAi offset, or kMboxWords.
std::size_t word_index(const std::array<hw::Reg, nic::kMboxWords>& regs, std::uint32_t offset) {
  const auto it = std::find_if(regs.begin(), regs.end(),
                               [offset](const hw::Reg& r) { return r.offset == offset; });
  return static_cast<std::size_t>(it - regs.begin());
}

std::uint32_t word_of(const std::array<std::uint8_t, fmt::MgmtMsg::kSizeBytes>& bytes,
                      std::size_t w) {
  std::uint32_t v = 0;
  for (std::size_t b = 0; b < 4; ++b) {
    v |= std::uint32_t{bytes[4 * w + b]} << (8 * b);
  }
  return v;
}

}  // namespace

bool BarrierEngine::mbox_csr_read(std::uint32_t offset, std::uint32_t& value) const {
  if (const auto w = word_index(nic::MBOX_TX_DATA, offset); w < kMboxWords) {
    value = mbox_tx_data_[w];
    return true;
  }
  if (const auto w = word_index(nic::MBOX_RX_DATA, offset); w < kMboxWords) {
    value = mbox_rx_.empty() ? 0 : word_of(mbox_rx_.front().payload, w);
    return true;
  }
  switch (offset) {
    case nic::MBOX_TX_CTRL.offset:
      value = nic::MBOX_TX_CTRL_DST_LID.put(mbox_tx_dst_);  // SEND reads 0
      return true;
    case nic::MBOX_STATUS.offset:
      value = nic::MBOX_STATUS_TX_BUSY.put(mbox_tx_busy() ? 1 : 0) |
              nic::MBOX_STATUS_RX_LEVEL.put(static_cast<std::uint32_t>(mbox_rx_.size()));
      return true;
    case nic::MBOX_RX_SRC.offset:
      value = nic::MBOX_RX_SRC_SRC_LID.put(mbox_rx_.empty() ? 0 : mbox_rx_.front().src);
      return true;
    case nic::MBOX_RX_POP.offset:
      value = 0;  // POP is a pulse
      return true;
    default:
      return false;
  }
}

bool BarrierEngine::mbox_csr_write(std::uint32_t offset, std::uint32_t value) {
  if (const auto w = word_index(nic::MBOX_TX_DATA, offset); w < kMboxWords) {
    mbox_tx_data_[w] = value;
    return true;
  }
  switch (offset) {
    case nic::MBOX_TX_CTRL.offset:
      mbox_tx_dst_ = static_cast<std::uint16_t>(nic::MBOX_TX_CTRL_DST_LID.get(value));
      if (nic::MBOX_TX_CTRL_SEND.get(value) != 0) {
        mbox_send();
      }
      return true;
    case nic::MBOX_RX_POP.offset:
      if (nic::MBOX_RX_POP_POP.get(value) != 0 && !mbox_rx_.empty()) {
        mbox_rx_.pop_front();
        trace("mbox.pop level=" + std::to_string(mbox_rx_.size()));
      }
      return true;
    default:
      return false;  // MBOX_STATUS, MBOX_RX_DATA, MBOX_RX_SRC are read-only
  }
}

void BarrierEngine::mbox_send() {
  if (mbox_tx_busy()) {
    trace("mbox.send ignored (busy)");
    return;
  }
  // The header's prio and src_lid are stamped as it leaves (stamp()); every
  // other field but type, length and destination stays 0.
  mbox_tx_.hdr = fmt::PktHdr{};
  mbox_tx_.hdr.set_pkt_type(fmt::PktType::kMgmt)
      .set_len_flits(fmt::kMgmtFlits)
      .set_dst_lid(mbox_tx_dst_)
      .set_src_lid(cfg_.lid);
  for (std::size_t b = 0; b < kMboxBytes; ++b) {
    mbox_tx_.payload[b] = static_cast<std::uint8_t>(mbox_tx_data_[b / 4] >> (8 * (b % 4)));
  }
  mbox_tx_.state = MboxTxState::kPending;
  mbox_tx_.next = 0;
  trace("mbox.send dst=" + hex16(mbox_tx_dst_));
}

LinkFlit BarrierEngine::mbox_payload_flit() const {
  // Payload byte b is byte b mod 16 of flit 1 + b div 16.
  LinkFlit f;
  const std::size_t first = (mbox_tx_.next - 1) * kFlitBytes;
  std::copy_n(mbox_tx_.payload.begin() + static_cast<std::ptrdiff_t>(first), kFlitBytes,
              f.data.begin());
  f.last = mbox_tx_.next + 1 == fmt::kMgmtFlits;
  return f;
}

// A flit of the MGMT packet left: its header (kShown) or a payload flit.
void BarrierEngine::mbox_flit_left() {
  ++mbox_tx_.next;
  if (mbox_tx_.next < fmt::kMgmtFlits) {
    mbox_tx_.state = MboxTxState::kPayload;
    return;
  }
  mbox_tx_.state = MboxTxState::kIdle;
  mbox_tx_.next = 0;
  count(Counter::kMgmtSent);
  trace("mbox.sent dst=" + hex16(mbox_tx_.hdr.dst_lid()));
}

void BarrierEngine::mbox_rx_flit(const LinkFlit& flit) {
  if (rx_state_ == RxState::kIdle) {
    rx_mgmt_hdr_ = fmt::PktHdr(flit.data);
    rx_mgmt_flits_ = 1;
    rx_mgmt_.fill(0);
  } else {
    ++rx_mgmt_flits_;
    if (rx_mgmt_flits_ <= fmt::kMgmtFlits) {
      std::copy(flit.data.begin(), flit.data.end(),
                rx_mgmt_.begin() + static_cast<std::ptrdiff_t>((rx_mgmt_flits_ - 2) * kFlitBytes));
    }
  }
  if (!flit.last) {
    rx_state_ = RxState::kMgmt;
    return;
  }
  rx_state_ = RxState::kIdle;
  mbox_rx_end();
}

// The last flit of a MGMT packet was taken this cycle: it enters the FIFO
// (seen from the next cycle on) or is dropped.
void BarrierEngine::mbox_rx_end() {
  const auto& h = rx_mgmt_hdr_;
  const std::string what = "mbox.rx src=" + hex16(h.src_lid()) + " dst=" + hex16(h.dst_lid());
  if (rx_mgmt_flits_ != fmt::kMgmtFlits || h.len_flits() != fmt::kMgmtFlits) {
    net_drop(what + " (" + std::to_string(rx_mgmt_flits_) + " flits, len_flits " +
             std::to_string(h.len_flits()) + ")");
    return;
  }
  if (h.dst_lid() != cfg_.lid) {
    net_drop(what + " (not this node's)");
    return;
  }
  if (mbox_rx_.size() >= cfg_.mbox_depth) {
    net_drop(what + " (FIFO full)");
    return;
  }
  mbox_rx_.push_back(MboxDatagram{h.src_lid(), rx_mgmt_});
  count(Counter::kMgmtRecv);
  intr_status_ |= nic::INTR_STATUS_MGMT_RX.mask;
  trace(what + " level=" + std::to_string(mbox_rx_.size()));
}

void BarrierEngine::mbox_soft_reset() {
  mbox_rx_.clear();
  // A packet whose header left finishes (the link carries it whole); one
  // not yet started is abandoned.
  if (mbox_tx_.state == MboxTxState::kPending || mbox_tx_.state == MboxTxState::kShown) {
    mbox_tx_.state = MboxTxState::kIdle;
    mbox_tx_.next = 0;
  }
}

}  // namespace syncfab::model
