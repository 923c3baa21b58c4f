// The mailbox under random traffic: datagrams good and bad arriving beside
// NOTIFYs (so SE's responses compete for the arbiter), SENDs (some while
// busy), POPs, a link not always ready. Checked against a reference FIFO:
// every MGMT packet sent whole and in order with the data of an accepted
// SEND, never interleaved; the FIFO's head, level and the counters.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include <syncfab/hw/host_memory.hpp>
#include <syncfab/hw/nic_regs.hpp>
#include <syncfab/model/barrier_engine.hpp>
#include <syncfab/test/seeds.hpp>

namespace syncfab::model::test {
namespace {

namespace nic = hw::nic;

constexpr std::uint16_t kMe = 0x0010;
constexpr std::uint16_t kPeer = 0x0020;
constexpr unsigned kCtx = 4;
using Words = std::array<std::uint32_t, nic::kMboxWords>;

struct Datagram {
  std::uint16_t lid = 0;  // src (received) or dst (sent)
  Words words{};
  friend bool operator==(const Datagram&, const Datagram&) = default;
};

class MailboxFuzz {
 public:
  explicit MailboxFuzz(std::uint64_t seed)
      : rng_(seed), mem_(0x1000'0000, 4096), eng_(config(rng_), mem_) {}

  void run(unsigned steps) {
    for (unsigned s = 0; s < steps; ++s) {
      const unsigned what = pick(0, 99);
      if (what < 30) {
        offer_mgmt();
      } else if (what < 45) {
        offer_notify();
      } else if (what < 65) {
        send();
      } else if (what < 85) {
        pop();
      } else {
        cycles(pick(1, 6));
      }
      if (::testing::Test::HasFatalFailure()) {
        return;
      }
    }
    eng_.set_tx_ready(true);
    for (int i = 0; i < 100 && !eng_.quiescent(); ++i) {
      cycles(1);
    }
    ASSERT_TRUE(eng_.quiescent());
    EXPECT_TRUE(sends_.empty()) << sends_.size() << " accepted SENDs never left";
    EXPECT_EQ(eng_.counter(Counter::kMgmtSent), sent_);
    EXPECT_EQ(eng_.counter(Counter::kMgmtRecv), recv_);
    EXPECT_GT(sent_, 0U);
    EXPECT_GT(recv_, 0U);
    EXPECT_GT(eng_.counter(Counter::kNotifRecv) + eng_.counter(Counter::kNackSent), 0U);
    check_head();
  }

 private:
  static EngineConfig config(std::mt19937_64& rng) {
    EngineConfig c;
    c.lid = kMe;
    c.num_ctx = kCtx;
    c.req_damq_entries = 4;
    c.mbox_depth = static_cast<unsigned>(rng() % 4) + 1;
    return c;
  }
  unsigned pick(unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng_);
  }
  Words words() {
    Words w{};
    for (auto& v : w) {
      v = static_cast<std::uint32_t>(rng_());
    }
    return w;
  }

  // Steps the queued link, tx_ready low one cycle in four, checking every
  // packet that left.
  void cycles(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      eng_.set_tx_ready(pick(0, 3) != 0);
      eng_.step();
      while (auto p = eng_.transmit_flits()) {
        check_sent(*p);
      }
    }
  }
  // Until every flit offered has been taken (the packets judged).
  void drain() {
    for (int i = 0; i < 1000 && eng_.link_backlog() != 0; ++i) {
      cycles(1);
    }
    ASSERT_EQ(eng_.link_backlog(), 0U) << "the link stalled";
  }

  void check_sent(const std::vector<LinkFlit>& p) {
    const fmt::PktHdr h(p.front().data);
    if (h.pkt_type() != fmt::PktType::kMgmt) {
      ASSERT_EQ(p.size(), 1U) << "a one-flit packet with flits of another";
      ASSERT_TRUE(p.front().last);
      return;
    }
    ASSERT_EQ(p.size(), fmt::kMgmtFlits) << "a MGMT packet interleaved or cut";
    ASSERT_FALSE(sends_.empty()) << "a MGMT packet no accepted SEND asked for";
    const Datagram want = sends_.front();
    sends_.pop_front();
    EXPECT_EQ(h.dst_lid(), want.lid);
    EXPECT_EQ(h.src_lid(), kMe);
    EXPECT_EQ(h.len_flits(), fmt::kMgmtFlits);
    Words got{};
    for (std::size_t b = 0; b < fmt::MgmtMsg::kSizeBytes; ++b) {
      got[b / 4] |= std::uint32_t{p[1 + b / kFlitBytes].data[b % kFlitBytes]} << (8 * (b % 4));
    }
    EXPECT_EQ(got, want.words);
    ++sent_;
  }

  void offer_mgmt() {
    Datagram d{static_cast<std::uint16_t>(pick(1, 0x40)), words()};
    unsigned len = fmt::kMgmtFlits;
    unsigned flits = fmt::kMgmtFlits;
    std::uint16_t dst = kMe;
    switch (pick(0, 9)) {
      case 0:
        flits = pick(1, 5);
        break;
      case 1:
        len = pick(0, 5);
        break;
      case 2:
        dst = pick(0, 1) != 0 ? static_cast<std::uint16_t>(kMe + 1)
                              : static_cast<std::uint16_t>(fmt::kMlidBase + pick(0, 9));
        break;
      default:
        break;
    }
    fmt::PktHdr h;
    h.set_pkt_type(fmt::PktType::kMgmt)
        .set_len_flits(static_cast<std::uint8_t>(len))
        .set_src_lid(d.lid)
        .set_dst_lid(dst);
    std::vector<LinkFlit> f{header_flit(h, flits == 1)};
    for (unsigned i = 1; i < flits; ++i) {
      LinkFlit x;
      for (std::size_t b = 0; b < kFlitBytes; ++b) {
        const std::size_t at = (i - 1) * kFlitBytes + b;
        x.data[b] = at < fmt::MgmtMsg::kSizeBytes
                        ? static_cast<std::uint8_t>(d.words[at / 4] >> (8 * (at % 4)))
                        : std::uint8_t{0};
      }
      x.last = i + 1 == flits;
      f.push_back(x);
    }
    const bool enters = flits == fmt::kMgmtFlits && len == fmt::kMgmtFlits && dst == kMe &&
                        fifo_.size() < eng_.config().mbox_depth;
    drain();  // what was offered before is judged first
    const std::uint32_t drops = eng_.counter(Counter::kDrop);
    eng_.receive(f);
    drain();
    if (enters) {
      fifo_.push_back(d);
      ++recv_;
    }
    EXPECT_EQ(eng_.counter(Counter::kDrop) - drops, enters ? 0U : 1U)
        << "len_flits " << len << ", " << flits << " flits, dst " << dst;
    check_head();
  }

  void offer_notify() {
    fmt::PktHdr h;
    h.set_pkt_type(fmt::PktType::kNotify)
        .set_len_flits(1)
        .set_src_lid(kPeer)
        .set_dst_lid(kMe)
        .set_ctx(static_cast<std::uint8_t>(pick(0, kCtx - 1)))
        .set_epoch(static_cast<std::uint16_t>(pick(1, 50)))
        .set_round(0);
    eng_.receive(h);
  }

  void send() {
    const bool busy = nic::MBOX_STATUS_TX_BUSY.get(eng_.csr_read(nic::MBOX_STATUS.offset)) != 0;
    const Datagram d{static_cast<std::uint16_t>(pick(1, 0x40)), words()};
    for (std::size_t w = 0; w < d.words.size(); ++w) {
      eng_.csr_write(nic::MBOX_TX_DATA[w].offset, d.words[w]);
    }
    eng_.csr_write(nic::MBOX_TX_CTRL.offset,
                   nic::MBOX_TX_CTRL_DST_LID.put(d.lid) | nic::MBOX_TX_CTRL_SEND.put(1));
    if (!busy) {
      sends_.push_back(d);
    }
  }

  void pop() {
    drain();
    check_head();
    eng_.csr_write(nic::MBOX_RX_POP.offset, nic::MBOX_RX_POP_POP.put(1));
    if (!fifo_.empty()) {
      fifo_.pop_front();
    }
    check_head();
  }

  void check_head() {
    const std::uint32_t status = eng_.csr_read(nic::MBOX_STATUS.offset);
    ASSERT_EQ(nic::MBOX_STATUS_RX_LEVEL.get(status), fifo_.size());
    Datagram head;
    head.lid = static_cast<std::uint16_t>(
        nic::MBOX_RX_SRC_SRC_LID.get(eng_.csr_read(nic::MBOX_RX_SRC.offset)));
    for (std::size_t w = 0; w < head.words.size(); ++w) {
      head.words[w] = eng_.csr_read(nic::MBOX_RX_DATA[w].offset);
    }
    EXPECT_EQ(head, fifo_.empty() ? Datagram{} : fifo_.front());
  }

  std::mt19937_64 rng_;
  hw::HostMemory mem_;
  BarrierEngine eng_;
  std::deque<Datagram> fifo_;   // the reference receive FIFO
  std::deque<Datagram> sends_;  // accepted SENDs not yet seen leaving
  std::uint32_t sent_ = 0;
  std::uint32_t recv_ = 0;
};

TEST(MailboxFuzz, RandomTrafficKeepsTheFifoAndThePacketsWhole) {
  for (const auto seed : syncfab::test::seeds({1, 2, 3})) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 "; replay: " + syncfab::test::replay_command(seed));
    MailboxFuzz f(seed);
    f.run(5'000);
    if (::testing::Test::HasFailure()) {
      return;
    }
  }
}

}  // namespace
}  // namespace syncfab::model::test
