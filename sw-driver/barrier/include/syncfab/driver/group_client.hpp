// The driver's side of the group protocol over the fabric
// (docs/group-protocol.md section 4): join and leave requests to the
// subnet-manager agent through the NIC's mailbox, re-sent until answered,
// answers matched by transaction number. Non-blocking: poll() in the host's
// loop (a simulated fabric advances between polls), state() tells when a
// request is done. A joined group gives the GroupTarget and first epoch a
// group barrier context opens with.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/driver/group_desc.hpp"
#include "syncfab/driver/mailbox.hpp"
#include "syncfab/driver/nic.hpp"

namespace syncfab::driver {

struct GroupId {
  std::uint64_t prefix = 0;
  std::uint64_t id = 0;
  friend bool operator==(const GroupId&, const GroupId&) = default;
};

struct GroupClientOptions {
  // Device time in nanoseconds (e.g. the simulated cycle count).
  std::function<std::uint64_t()> clock_ns;
  std::uint64_t resend_ns = 5'000;       // a request unanswered this long is sent again
  std::uint64_t timeout_ns = 2'000'000;  // a request unanswered this long has failed
};

enum class RequestState : std::uint8_t {
  kPending,
  kDone,      // join: READY; leave: left
  kRefused,   // the agent refused it (answer().status() names why)
  kTimedOut,  // no final answer within timeout_ns
};
const char* to_string(RequestState s);

struct GroupClientStats {
  std::uint64_t sent = 0;     // requests sent, re-sends included
  std::uint64_t resent = 0;   // of which re-sends
  std::uint64_t answers = 0;  // datagrams taken that answered a request
  std::uint64_t stale = 0;    // datagrams taken that answered nothing outstanding
};

class GroupClient {
 public:
  // `agent_lid`: the subnet-manager agent's LID. std::invalid_argument for
  // a missing clock or a zero resend interval.
  GroupClient(hw::Device& nic, std::uint16_t agent_lid, GroupClientOptions options);

  // Start a request; returns its handle. Nothing is sent before poll().
  unsigned join(const GroupId& group, std::uint16_t member_count, std::uint16_t member,
                std::uint16_t proposed_epoch);
  unsigned leave(const GroupId& group);
  // Sends what is due (first sends, re-sends), takes every datagram waiting.
  void poll();

  [[nodiscard]] RequestState state(unsigned handle) const;
  // The last answer to the request (READY, or the refusing STATE).
  [[nodiscard]] const std::optional<fmt::MgmtMsg>& answer(unsigned handle) const;
  // A done join: what a group barrier context needs, and a description for
  // messages (std::logic_error if the join is not done).
  [[nodiscard]] GroupTarget target(unsigned handle, GroupBarrierKind kind) const;
  [[nodiscard]] std::uint16_t first_epoch(unsigned handle) const;
  [[nodiscard]] std::string describe(unsigned handle) const;
  [[nodiscard]] const GroupClientStats& stats() const { return stats_; }

 private:
  struct Request {
    fmt::MgmtMsg msg;
    RequestState state = RequestState::kPending;
    std::optional<std::uint64_t> sent_at;  // last send
    std::uint64_t first_at = 0;
    std::optional<fmt::MgmtMsg> answer;
  };
  unsigned start(fmt::MgmtMsg msg);
  void take(const Datagram& d);
  [[nodiscard]] const Request& request(unsigned handle) const;

  Mailbox mailbox_;
  std::uint16_t agent_;
  GroupClientOptions opt_;
  std::map<unsigned, Request> requests_;  // handle = txn
  unsigned next_txn_ = 1;
  GroupClientStats stats_;
};

}  // namespace syncfab::driver
