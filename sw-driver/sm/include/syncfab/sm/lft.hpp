#pragma once
// Unicast linear forwarding tables (LFT): per switch, destination -> out
// port, as the switches are programmed. The column is the destination index
// (Fabric::dest), which is the LID wherever the destination has one, so a
// fabric past the LID space is routed and checked alike; only lfts.dump
// needs every destination to have a LID. Stored as one flat array, 4 bits per
// entry when every switch has at most 14 ports (the 30x20x20 torus: 216 MB
// instead of 432 MB), else one byte. Port 0 = the switch itself, kNoRoute =
// unrouted (OpenSM's OSM_NO_PATH).
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/minhop.hpp"

namespace syncfab::sm {

inline constexpr PortNum kNoRoute = 0xFF;

class Lft {
 public:
  explicit Lft(const Fabric& fabric);

  // Inline: the credit-loop checker reads every entry.
  [[nodiscard]] PortNum get(SwitchIdx s, Dest d) const {
    const std::size_t i = static_cast<std::size_t>(s) * dests_ + d;
    if (!nibbles_) {
      return table_[i];
    }
    const std::uint8_t v = (table_[i / 2] >> ((i & 1U) * 4)) & 0xFU;
    return v == 0xF ? kNoRoute : v;
  }
  // fn(k, get(s, d + k)) for k = 0..n-1, a byte at a time: the credit-loop
  // checker reads every entry, a run of destinations per switch row.
  template <typename F>
  void for_run(SwitchIdx s, Dest d, std::size_t n, F&& fn) const {
    std::size_t i = static_cast<std::size_t>(s) * dests_ + d;
    if (!nibbles_) {
      for (std::size_t k = 0; k < n; ++k) {
        fn(k, table_[i + k]);
      }
      return;
    }
    auto port = [](unsigned v) { return v == 0xF ? kNoRoute : static_cast<PortNum>(v); };
    std::size_t k = 0;
    if ((i & 1U) != 0 && n > 0) {
      fn(k++, port(table_[i / 2] >> 4U));
      ++i;
    }
    const std::uint8_t* b = table_.data() + i / 2;
    for (; k + 1 < n; k += 2, ++b) {
      fn(k, port(*b & 0xFU));
      fn(k + 1, port(*b >> 4U));
    }
    if (k < n) {
      fn(k, port(*b & 0xFU));
    }
  }
  // Inline: the engines write every entry.
  void set(SwitchIdx s, Dest d, PortNum port) {
    if (s >= ports_.size() || d >= dests_ || (port != kNoRoute && port > ports_[s])) {
      fail_set(s, d, port);
    }
    const std::size_t i = static_cast<std::size_t>(s) * dests_ + d;
    if (!nibbles_) {
      table_[i] = port;
      return;
    }
    const auto v = static_cast<std::uint8_t>(port == kNoRoute ? 0xF : port);
    const unsigned shift = (i & 1U) * 4;
    table_[i / 2] = static_cast<std::uint8_t>((table_[i / 2] & ~(0xFU << shift)) | (v << shift));
  }
  // The whole row of switch s at once (row[d] for every d < dest_count()),
  // for engines that compute a switch's table in one pass.
  void set_row(SwitchIdx s, std::span<const PortNum> row);
  [[nodiscard]] std::size_t dest_count() const { return dests_; }  // Fabric::dest_count()
  [[nodiscard]] int bits_per_entry() const { return nibbles_ ? 4 : 8; }
  [[nodiscard]] std::size_t memory_bytes() const { return table_.capacity(); }
  [[nodiscard]] const Fabric& fabric() const { return fabric_; }

 private:
  [[noreturn]] void fail_set(SwitchIdx s, Dest d, PortNum port) const;
  const Fabric& fabric_;
  std::size_t dests_;
  bool nibbles_;
  std::vector<std::uint8_t> table_;
  std::vector<std::uint8_t> ports_;  // per switch: its highest port
};

// Follows the tables from switch s toward destination d. Returns the switches visited
// (s first, the destination's switch last) or an empty vector when an entry
// is missing, leads off the fabric or to the wrong end node, or loops.
std::vector<SwitchIdx> walk(const Lft& lft, SwitchIdx s, Dest d);

// Every (switch, destination) entry of a switch in `sources` (all
// switches when empty) is checked: it routes along a shortest path, so by
// induction every walk reaches the destination in min-hop hops. Returns ""
// or the first violation (switch name, destination, port, hops).
std::string check_shortest(const MinHop& mh, const Lft& lft,
                           const std::vector<SwitchIdx>& sources = {});

// How evenly the tables spread destinations over switch-to-switch ports.
// The spread is taken over each switch's up-ports: ports to a switch farther
// from the end nodes (level = distance to the nearest switch with an end
// node); on fabrics where every switch has end nodes (torus, dragonfly), over
// all its switch ports.
struct LftBalance {
  std::uint32_t max_port_lids = 0;  // most LIDs routed out of one switch-to-switch port
  double mean_port_lids = 0;        // over switch-to-switch ports
  std::uint32_t max_spread = 0;     // max over switches of (max - min) over its up-ports
  std::size_t unrouted = 0;         // (switch, LID) entries left kNoRoute
};
LftBalance lft_balance(const MinHop& mh, const Lft& lft);

// OpenSM's opensm-lfts.dump layout (dump_ucast_lfts): per switch a header
// "Unicast lids [0-MAX] of switch Lid L guid 0x... ('name'):", one line per
// routed LID "0xLLLL PPP # <type> portguid 0x...: 'name'", then
// "MAX lids dumped". Throws FabricError naming the count when some
// destinations have no LID (the dump cannot name them).
void write_lfts_dump(std::ostream& out, const Lft& lft);

// OpenSM's guid2lid cache (osm_db domain file): per LID-owning port
// "0x<port guid> 0x<lid> 0x<lid>" and a blank line (OpenSM reads only the
// first record of a file without them), in LID order. With it and
// --honor_guid2lid OpenSM keeps the LIDs lfts.dump was computed for.
void write_guid2lid(std::ostream& out, const Fabric& fabric);

}  // namespace syncfab::sm
