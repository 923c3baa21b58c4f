// The NIC's network link as the golden model sees it (docs/nic/top.md
// "Interface"): one FLIT_BITS flit per cycle each way, `last` on a packet's
// final flit, valid/ready. What arrives is any packet, PFC frames included;
// what the engine sends is one-flit barrier packets and the mailbox's MGMT
// packets (MGMT_FLITS flits, never interleaved with another packet).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include <syncfab/fmt/formats.hpp>

#include "syncfab/model/flit.hpp"

namespace syncfab::model {

// One flit on the link: the data (rx_data_i / tx_data_o) and `last`.
struct LinkFlit {
  Flit data{};
  bool last = true;

  friend bool operator==(const LinkFlit&, const LinkFlit&) = default;
};

// The link inputs of one clock cycle.
struct NetIn {
  std::optional<LinkFlit> rx;  // rx_valid_i with rx_data_i, rx_last_i
  bool tx_ready = true;        // tx_ready_i
};

// What happened on the link pins in that cycle.
struct NetOut {
  bool rx_taken = false;            // rx_valid_i && rx_ready_o
  std::optional<fmt::PktHdr> tx;    // tx_data_o when the flit shown is a packet's header
  std::optional<LinkFlit> tx_flit;  // tx_valid_o with tx_data_o, tx_last_o (every flit)
  bool tx_taken = false;            // tx_valid_o && tx_ready_i: the flit shown left
};

// A packet header as one flit (`last`: a one-flit packet).
LinkFlit header_flit(const fmt::PktHdr& hdr, bool last = true);

// A well-formed PFC frame (pkt_type PFC, len_flits 2): for every priority p
// whose bit is set in class_enable, quanta[p] (one entry per priority,
// NUM_PRIO of them; std::invalid_argument otherwise) applies to p.
fmt::PfcFrame make_pfc_frame(std::uint8_t class_enable, std::span<const std::uint16_t> quanta);
// The same pause (or resume, quanta 0) for every class in the mask; the
// quanta of classes outside it are 0.
fmt::PfcFrame make_pfc_frame(std::uint8_t class_enable, std::uint16_t quanta);

// The frame's two flits, `last` on the second.
std::array<LinkFlit, kPfcFrameFlits> pfc_flits(const fmt::PfcFrame& frame);

}  // namespace syncfab::model
