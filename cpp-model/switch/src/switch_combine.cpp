// The switch's combine unit (docs/group-barrier.md §5): for a complete
// COMB_ARRIVE or COMB_RELEASE taken by the enqueue step, one packet at a
// time, the consistency check of its combine entry against the MFT, the
// epoch/arrival update and the packet it emits (src_lid 0, dst_lid the MLID,
// one flit, the other fields kept), which then goes through the enqueue like
// any copy. The safety rules of §7 are checked on every emission and thrown
// as std::logic_error.
#include <bit>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "syncfab/model/switch_model.hpp"

namespace syncfab::model {

namespace {

constexpr std::uint32_t kValid = 1U << 31;

std::string hex(unsigned v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

bool consistent(const CombineEntry& e, std::uint32_t mft, unsigned ports) {
  if (!e.valid || e.ring || (mft & kValid) == 0) {
    return false;
  }
  const std::uint32_t all = (1U << ports) - 1U;
  const std::uint32_t mask = mft & all;
  if (e.root) {
    return mask == e.children;
  }
  return e.parent < ports && (e.children >> e.parent & 1U) == 0 &&
         mask == (e.children | (1U << e.parent));
}

}  // namespace

void SwitchModel::drop_combine(unsigned i, const RxPacket& rx, const std::string& why) {
  count(i, rx.prio, fmt::SwCounter::kDropNoRoute);
  drops_.push_back({rx.id, i, rx.prio, fmt::SwCounter::kDropNoRoute, now_});
  if (trace_) {
    trace("DROP_NO_ROUTE port=" + std::to_string(i) + " prio=" + std::to_string(rx.prio) + " pkt=" +
          std::to_string(rx.id) + " dst=" + hex(rx.hdr.dst_lid()) + " (combine: " + why + ")");
  }
}

SwitchModel::CombineTake SwitchModel::combine(unsigned i, RxPacket& rx) {
  const fmt::PktHdr h = rx.hdr;
  const bool arrive = h.pkt_type() == fmt::PktType::kCombArrive;
  const std::uint16_t dst = h.dst_lid();
  const std::uint16_t e = h.epoch();
  if (rx.flits.size() != 1) {
    drop_combine(i, rx, "not one flit");
    return CombineTake::kNone;
  }
  if (dst < fmt::kMlidBase || std::size_t{dst} - fmt::kMlidBase >= csr_.combine().size()) {
    drop_combine(i, rx, "no combine entry");
    return CombineTake::kNone;
  }
  const unsigned x = dst - fmt::kMlidBase;
  CombineEntry& ent = csr_.hw_combine(x);
  if (ent.valid && ent.ring) {
    return combine_ring(i, rx, ent);
  }
  if (h.pkt_type() == fmt::PktType::kCombShare) {
    drop_combine(i, rx, "COMB_SHARE for entry " + std::to_string(x) + ", not in ring mode");
    return CombineTake::kNone;
  }
  if (!consistent(ent, csr_.mft().at(x), ports())) {
    drop_combine(i, rx, "entry " + std::to_string(x) + " inconsistent with the MFT");
    return CombineTake::kNone;
  }
  const auto prev = static_cast<std::uint16_t>(ent.epoch - 1U);
  const std::uint32_t bit = 1U << i;
  const std::string what = std::string(arrive ? "COMB_ARRIVE" : "COMB_RELEASE") +
                           " port=" + std::to_string(i) + " pkt=" + std::to_string(rx.id) +
                           " mlid=" + hex(dst) + " ep=" + std::to_string(e) +
                           " E=" + std::to_string(ent.epoch);
  // What the unit emits: none (absorbed), an arrival to the parent, a
  // release to a port set.
  fmt::PktType out_type = fmt::PktType::kCombRelease;
  std::uint32_t outputs = 0;
  const std::uint32_t before = ent.arrived;
  const std::uint16_t epoch_before = ent.epoch;
  if (arrive) {
    if ((ent.children & bit) == 0) {
      drop_combine(i, rx, "arrival from port " + std::to_string(i) + ", not a child");
      return CombineTake::kNone;
    }
    if (e == ent.epoch) {
      const bool fresh = (ent.arrived & bit) == 0;
      ent.arrived |= bit;
      if (ent.arrived == ent.children && (fresh || !ent.root)) {
        if (ent.root) {
          outputs = ent.children;
          ent.epoch = static_cast<std::uint16_t>(ent.epoch + 1U);
          ent.arrived = 0;
        } else {
          out_type = fmt::PktType::kCombArrive;  // first or re-sent: climbs to the parent
          outputs = 1U << ent.parent;
        }
      }
    } else if (e == prev) {
      outputs = bit;  // the child missed release e
    } else {
      drop_combine(
          i, rx,
          "arrival of epoch " + std::to_string(e) + ", entry at " + std::to_string(ent.epoch));
      return CombineTake::kNone;
    }
  } else {
    if (ent.root || i != ent.parent) {
      drop_combine(i, rx, "release from port " + std::to_string(i) + ", not the parent");
      return CombineTake::kNone;
    }
    if (e == ent.epoch && ent.arrived == ent.children) {
      ent.epoch = static_cast<std::uint16_t>(ent.epoch + 1U);
      ent.arrived = 0;
      outputs = ent.children;
    } else if (e == prev) {
      outputs = ent.children;  // a re-sent release
    } else {
      drop_combine(i, rx,
                   "release of epoch " + std::to_string(e) + ", entry at " +
                       std::to_string(ent.epoch) + (e == ent.epoch ? " waiting for arrivals" : ""));
      return CombineTake::kNone;
    }
  }
  if (outputs == 0) {
    if (trace_) {
      trace("COMBINE " + what + " -> absorbed arrived=" + hex(ent.arrived));
    }
    return CombineTake::kNone;
  }
  // Safety (docs/group-barrier.md §7): a release is made only by a root
  // whose arrivals equal its children (or re-sent for the previous epoch),
  // and forwarded only from the parent with every child in or for the
  // previous epoch; an arrival climbs only with every child in.
  const auto unsafe = [&](const std::string& rule) {
    throw std::logic_error("switch combine safety: " + rule + " (" + what + ")");
  };
  const bool resend_prev = e == static_cast<std::uint16_t>(epoch_before - 1U);
  if (out_type == fmt::PktType::kCombArrive) {
    if (ent.root || (before | bit) != ent.children || e != epoch_before) {
      unsafe("an arrival leaves for the parent without every child in");
    }
  } else if (arrive) {
    if (!resend_prev && (!ent.root || (before | bit) != ent.children)) {
      unsafe("a release is made by a non-root entry or before every child arrived");
    }
  } else if (ent.root || i != ent.parent ||
             !(resend_prev || (e == epoch_before && before == ent.children))) {
    unsafe("a release is forwarded not from the parent or before every child arrived");
  }
  fmt::PktHdr out = h;
  out.set_pkt_type(out_type).set_src_lid(fmt::kLidNone).set_dst_lid(dst).set_len_flits(1);
  rx.hdr = out;
  rx.flits[0] = out.bytes();
  rx.outputs = outputs;
  if (trace_) {
    trace("COMBINE " + what + " -> " + std::string(fmt::to_string(out_type)) +
          " ports=" + hex(outputs) + " E'=" + std::to_string(ent.epoch));
  }
  return CombineTake::kEmit;
}

}  // namespace syncfab::model
