#include "syncfab/driver/switch.hpp"

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "syncfab/driver/errors.hpp"
#include "syncfab/hw/csr.hpp"
#include "syncfab/hw/errors.hpp"
#include "syncfab/hw/switch_regs.hpp"

namespace syncfab::driver {

namespace r = hw::switch_regs;

namespace {

constexpr unsigned kTableLft = 0;
constexpr unsigned kTableMft = 1;
constexpr unsigned kTableCombChildren = 2;
constexpr unsigned kTableCombCtrl = 3;
constexpr unsigned kTableRingGeometry = 4;
constexpr unsigned kTableRingExpect = 5;
constexpr unsigned kTablePortGroups = 6;
constexpr std::uint32_t kEntryValid = 1U << 31;
constexpr std::uint32_t kLftGroup = 1U << 30;  // docs/switch-ecmp.md: PORT names a port group
// The combine control word (switch_csr.rdl, TBL_WDATA): PARENT[7:0],
// EPOCH[23:8], PHASES[25:24], RING[29], ROOT[30], VALID[31].
constexpr std::uint32_t kCombRoot = 1U << 30;
constexpr std::uint32_t kCombRing = 1U << 29;
constexpr unsigned kCombPhasesShift = 24;
constexpr std::uint32_t kCombPhasesMask = 0x3U;
constexpr unsigned kCombEpochShift = 8;
constexpr std::uint32_t kCombParentMask = 0xFFU;
// A ring geometry word: PLUS[7:0], MINUS[15:8], POS[20:16], LEN[26:21],
// ORIGIN[30], VALID[31]. Ring words of MLID index x, phase d: x * 4 + d.
constexpr unsigned kRingMinusShift = 8;
constexpr unsigned kRingPosShift = 16;
constexpr std::uint32_t kRingPosMask = 0x1FU;
constexpr unsigned kRingLenShift = 21;
constexpr std::uint32_t kRingLenMask = 0x3FU;
constexpr std::uint32_t kRingOrigin = 1U << 30;
constexpr unsigned kRingStride = 4;
static_assert(fmt::kCombPhases <= kRingStride && fmt::kCombPhases <= kCombPhasesMask);
static_assert(fmt::kCombRingMax <= kRingPosMask + 1 && fmt::kCombRingMax <= 32);
// Table commands complete in a few cycles; a device still busy after this
// many polls is broken, not slow.
constexpr int kTablePolls = 1000;
constexpr unsigned kMaxTime = (1U << 24) - 1;

std::string port_prio(unsigned port, unsigned prio) {
  return "port " + std::to_string(port) + " priority " + std::to_string(prio);
}

[[noreturn]] void refuse(const std::string& what) { throw std::invalid_argument(what); }

// "0xC000": LIDs in messages as the spec writes them.
std::string hex_upper(unsigned v) {
  std::ostringstream os;
  os << "0x" << std::uppercase << std::hex << v;
  return os.str();
}

}  // namespace

unsigned required_headroom(const LinkParams& link) {
  return 1 + link.max_pkt_flits + 2 + link.delay_cycles + 1 + link.max_pkt_flits +
         link.delay_cycles;
}

Switch::Switch(hw::Device& device) : device_(&device) {
  info_.id = check_identity(device, Identity{r::kMagic, r::kVersionMajor, r::kVersionMinor});
  const hw::Csr csr(device);
  const std::uint32_t hw = csr.read(r::HW_CFG);
  const std::uint32_t tc = csr.read(r::TABLE_CFG);
  info_.ports = r::HW_CFG_NUM_PORTS.get(hw);
  info_.prios = r::HW_CFG_NUM_PRIO.get(hw);
  info_.buf_cells = r::HW_CFG_BUF_CELLS.get(hw);
  info_.lft_entries = r::TABLE_CFG_LFT_ENTRIES.get(tc);
  info_.mft_entries = r::TABLE_CFG_MFT_ENTRIES.get(tc);
  if (info_.ports == 0 || info_.ports > r::kMaxPorts || info_.prios != fmt::kNumPrio) {
    throw DeviceMismatch("switch reports " + std::to_string(info_.ports) + " ports and " +
                         std::to_string(info_.prios) + " priorities; this driver handles 1.." +
                         std::to_string(r::kMaxPorts) + " ports and " +
                         std::to_string(fmt::kNumPrio) + " priorities");
  }
}

void Switch::enable(bool on) { hw::Csr(*device_).modify(r::CTRL_ENABLE, on ? 1 : 0); }

void Switch::check_port(unsigned port, const char* what) const {
  if (port >= info_.ports) {
    refuse(std::string(what) + ": port " + std::to_string(port) +
           " does not exist (the switch has " + std::to_string(info_.ports) + ")");
  }
}

void Switch::check_lid(std::uint16_t lid, const char* what) const {
  if (lid == 0 || lid >= fmt::kMlidBase) {
    refuse(std::string(what) + ": LID " + std::to_string(lid) + " is not a unicast LID (1 .. " +
           hex_upper(fmt::kMlidBase - 1U) + ")");
  }
  if (lid >= info_.lft_entries) {
    refuse(std::string(what) + ": LID " + std::to_string(lid) + " is beyond the LFT (" +
           std::to_string(info_.lft_entries) + " entries)");
  }
}

unsigned Switch::mft_index(std::uint16_t mlid, const char* what) const {
  if (mlid < fmt::kMlidBase || static_cast<unsigned>(mlid - fmt::kMlidBase) >= info_.mft_entries) {
    refuse(std::string(what) + ": MLID " + std::to_string(mlid) + " is outside the MFT (" +
           hex_upper(fmt::kMlidBase) + " .. " + hex_upper(fmt::kMlidBase) + "+" +
           std::to_string(info_.mft_entries) + "-1)");
  }
  return mlid - fmt::kMlidBase;
}

std::uint32_t Switch::table_read(unsigned table, unsigned index) {
  hw::Csr csr(*device_);
  csr.write(r::TBL_ADDR, {{r::TBL_ADDR_INDEX, index}, {r::TBL_ADDR_TABLE, table}});
  csr.write(r::TBL_CMD, {{r::TBL_CMD_READ, 1}});
  for (int i = 0; i < kTablePolls; ++i) {
    if (csr.read(r::TBL_STATUS_BUSY) == 0) {
      return csr.read(r::TBL_RDATA);
    }
  }
  throw hw::BusError("switch table read of entry " + std::to_string(index) + " still busy after " +
                     std::to_string(kTablePolls) + " polls of TBL_STATUS");
}

void Switch::table_write(unsigned table, unsigned index, std::uint32_t data) {
  hw::Csr csr(*device_);
  csr.write(r::TBL_ADDR, {{r::TBL_ADDR_INDEX, index}, {r::TBL_ADDR_TABLE, table}});
  csr.write(r::TBL_WDATA, data);
  csr.write(r::TBL_CMD, {{r::TBL_CMD_WRITE, 1}});
}

void Switch::set_lft(std::uint16_t lid, unsigned port) {
  check_port(port, "set_lft");
  const LftEntry e{lid, static_cast<std::uint8_t>(port)};
  program_lft(std::span(&e, 1));
}

void Switch::program_lft(std::span<const LftEntry> entries) {
  // Each group an entry names is read back once: it must be valid there.
  std::vector<std::uint8_t> group_state(fmt::kPortGroups, 0);  // 0 unknown, 1 valid, 2 not
  for (const LftEntry& e : entries) {
    check_lid(e.lid, "program_lft");
    if (!e.group) {
      check_port(e.port, "program_lft");
      continue;
    }
    if (e.port >= fmt::kPortGroups) {
      refuse("program_lft: LID " + std::to_string(e.lid) + " names port group " +
             std::to_string(e.port) + " (the switch has " + std::to_string(fmt::kPortGroups) + ")");
    }
    std::uint8_t& st = group_state[e.port];
    if (st == 0) {
      st = (table_read(kTablePortGroups, e.port) & kEntryValid) != 0 ? 1 : 2;
    }
    if (st == 2) {
      refuse("program_lft: LID " + std::to_string(e.lid) + " names port group " +
             std::to_string(e.port) + ", which is not programmed (set_port_group first)");
    }
  }
  for (const LftEntry& e : entries) {
    table_write(kTableLft, e.lid, kEntryValid | (e.group ? kLftGroup : 0U) | e.port);
  }
}

std::optional<LftEntry> Switch::lft_entry(std::uint16_t lid) {
  check_lid(lid, "lft_entry");
  const std::uint32_t v = table_read(kTableLft, lid);
  if ((v & kEntryValid) == 0) {
    return std::nullopt;
  }
  return LftEntry{lid, static_cast<std::uint8_t>(v & 0xFFU), (v & kLftGroup) != 0};
}

void Switch::check_port_group(const PortGroupEntry& g, std::uint32_t up, const char* what) const {
  if (g.group >= fmt::kPortGroups) {
    refuse(std::string(what) + ": port group " + std::to_string(g.group) +
           " does not exist (the switch has " + std::to_string(fmt::kPortGroups) + ")");
  }
  if (g.members == 0) {
    refuse(std::string(what) + ": port group " + std::to_string(g.group) + " has no member port");
  }
  for (unsigned p = 0; p < 32; ++p) {
    if ((g.members >> p & 1U) == 0) {
      continue;
    }
    if (p >= info_.ports) {
      refuse(std::string(what) + ": port group " + std::to_string(g.group) + " names port " +
             std::to_string(p) + ", which does not exist (the switch has " +
             std::to_string(info_.ports) + ")");
    }
    if ((up >> p & 1U) == 0) {
      refuse(std::string(what) + ": port group " + std::to_string(g.group) + " names port " +
             std::to_string(p) + ", which is down (its PORT_UP bit is 0)");
    }
  }
}

void Switch::set_port_group(unsigned group, std::uint32_t members) {
  const PortGroupEntry g{group, members};
  program_port_groups(std::span(&g, 1));
}

void Switch::program_port_groups(std::span<const PortGroupEntry> groups) {
  const std::uint32_t up = port_up();
  for (const PortGroupEntry& g : groups) {
    check_port_group(g, up, "set_port_group");
  }
  for (const PortGroupEntry& g : groups) {
    table_write(kTablePortGroups, g.group, kEntryValid | g.members);
  }
}

void Switch::set_port_up(std::uint32_t mask) { hw::Csr(*device_).write(r::PORT_UP, mask); }

std::uint32_t Switch::port_up() { return hw::Csr(*device_).read(r::PORT_UP); }

std::uint32_t Switch::group_skips() { return hw::Csr(*device_).read(r::GROUP_SKIPS); }

void Switch::clear_port_group(unsigned group) {
  if (group >= fmt::kPortGroups) {
    refuse("clear_port_group: port group " + std::to_string(group) +
           " does not exist (the switch has " + std::to_string(fmt::kPortGroups) + ")");
  }
  table_write(kTablePortGroups, group, 0);
}

std::optional<std::uint32_t> Switch::port_group(unsigned group) {
  if (group >= fmt::kPortGroups) {
    refuse("port_group: port group " + std::to_string(group) + " does not exist (the switch has " +
           std::to_string(fmt::kPortGroups) + ")");
  }
  const std::uint32_t v = table_read(kTablePortGroups, group);
  if ((v & kEntryValid) == 0) {
    return std::nullopt;
  }
  return v & ~kEntryValid;
}

void Switch::clear_lft(std::uint16_t lid) {
  check_lid(lid, "clear_lft");
  table_write(kTableLft, lid, 0);
}

std::optional<unsigned> Switch::lft(std::uint16_t lid) {
  check_lid(lid, "lft");
  const std::uint32_t v = table_read(kTableLft, lid);
  if ((v & kEntryValid) == 0) {
    return std::nullopt;
  }
  return v & 0xFFU;
}

void Switch::set_mft(std::uint16_t mlid, std::uint32_t port_mask) {
  const unsigned idx = mft_index(mlid, "set_mft");
  if (port_mask == 0 || (info_.ports < 32 && (port_mask >> info_.ports) != 0)) {
    refuse("set_mft: port mask " + std::to_string(port_mask) + " for MLID " + std::to_string(mlid) +
           " is empty or names ports the switch does not have (" + std::to_string(info_.ports) +
           ")");
  }
  table_write(kTableMft, idx, kEntryValid | port_mask);
}

void Switch::clear_mft(std::uint16_t mlid) {
  table_write(kTableMft, mft_index(mlid, "clear_mft"), 0);
}

std::optional<std::uint32_t> Switch::mft(std::uint16_t mlid) {
  const std::uint32_t v = table_read(kTableMft, mft_index(mlid, "mft"));
  if ((v & kEntryValid) == 0) {
    return std::nullopt;
  }
  return v & ~kEntryValid;
}

PfcTiming Switch::read_pfc_timing() {
  const hw::Csr csr(*device_);
  const std::uint32_t v = csr.read(r::PFC_TIMING);
  return PfcTiming{static_cast<std::uint8_t>(r::PFC_TIMING_CYC_PER_QUANTUM.get(v)),
                   static_cast<std::uint16_t>(r::PFC_TIMING_REFRESH.get(v))};
}

PfcPortConfig Switch::read_pfc(unsigned port) {
  const hw::Csr csr(*device_);
  PfcPortConfig cfg{};
  const std::uint32_t en = r::PFC_EN_MASK.get(csr.read(r::port_reg(port, r::PortReg::kPfcEn)));
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    const std::uint32_t thr = csr.read(r::port_reg(port, r::PortReg::kPfcThr, p));
    const std::uint32_t q = csr.read(r::port_reg(port, r::PortReg::kQuanta, p / 2));
    cfg[p].lossless = ((en >> p) & 1U) != 0;
    cfg[p].xoff = static_cast<std::uint16_t>(r::PFC_THR_XOFF.get(thr));
    cfg[p].xon = static_cast<std::uint16_t>(r::PFC_THR_XON.get(thr));
    cfg[p].quanta =
        static_cast<std::uint16_t>(p % 2 == 0 ? r::QUANTA_Q_EVEN.get(q) : r::QUANTA_Q_ODD.get(q));
  }
  return cfg;
}

void Switch::check_refresh(unsigned port, const PfcPortConfig& cfg, const PfcTiming& timing,
                           const LinkParams& link) const {
  if (timing.cyc_per_quantum == 0) {
    refuse("PFC timing: cycles per quantum must be at least 1");
  }
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    if (!cfg[p].lossless) {
      continue;
    }
    const std::uint64_t pause = std::uint64_t{cfg[p].quanta} * timing.cyc_per_quantum;
    if (timing.refresh == 0) {
      refuse(port_prio(port, p) +
             " is lossless but PFC_TIMING.REFRESH is 0: the pause would run out while the "
             "buffer is still above XON");
    }
    const std::uint64_t renew = std::uint64_t{timing.refresh} + link.max_pkt_flits + 3;
    if (renew >= pause) {
      refuse(port_prio(port, p) + ": a pause of " + std::to_string(cfg[p].quanta) + " quanta x " +
             std::to_string(timing.cyc_per_quantum) + " cycles = " + std::to_string(pause) +
             " cycles runs out before its refresh (" + std::to_string(timing.refresh) +
             " + largest packet " + std::to_string(link.max_pkt_flits) +
             " + 3 = " + std::to_string(renew) + " cycles): raise the quanta or lower the refresh");
    }
  }
}

void Switch::set_pfc_timing(const PfcTiming& timing) {
  for (unsigned port = 0; port < info_.ports; ++port) {
    check_refresh(port, read_pfc(port), timing, links_[port]);
  }
  hw::Csr(*device_).write(r::PFC_TIMING, {{r::PFC_TIMING_CYC_PER_QUANTUM, timing.cyc_per_quantum},
                                          {r::PFC_TIMING_REFRESH, timing.refresh}});
}

void Switch::configure_pfc(unsigned port, const PfcPortConfig& cfg, const LinkParams& link) {
  check_port(port, "configure_pfc");
  const unsigned headroom = required_headroom(link);
  std::uint64_t reserved = 0;
  std::string lossless;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    const PfcPriority& c = cfg[p];
    if (!c.lossless) {
      continue;
    }
    if (c.xon > c.xoff) {
      refuse(port_prio(port, p) + ": XON " + std::to_string(c.xon) + " is above XOFF " +
             std::to_string(c.xoff) + " (the priority would resume before it is paused)");
    }
    if (c.xoff == 0) {
      refuse(port_prio(port, p) + ": XOFF 0 would pause the peer with an empty buffer");
    }
    if (c.quanta == 0) {
      refuse(port_prio(port, p) + ": pause quanta 0 is a resume, not a pause");
    }
    reserved += std::uint64_t{c.xoff} + headroom;
    lossless += (lossless.empty() ? "" : ", ") + std::to_string(p);
  }
  if (reserved > info_.buf_cells) {
    refuse("port " + std::to_string(port) + ": lossless priorities " + lossless +
           " need XOFF + headroom = " + std::to_string(reserved) + " cells, the buffer has " +
           std::to_string(info_.buf_cells) + " (headroom " + std::to_string(headroom) +
           " cells per priority for a " + std::to_string(link.delay_cycles) + "-cycle link and " +
           std::to_string(link.max_pkt_flits) + "-flit packets): lower XOFF or shorten the link");
  }
  check_refresh(port, cfg, read_pfc_timing(), link);

  hw::Csr csr(*device_);
  std::uint32_t mask = 0;
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    mask |= cfg[p].lossless ? 1U << p : 0U;
    csr.write(r::port_reg(port, r::PortReg::kPfcThr, p),
              {{r::PFC_THR_XOFF.at(r::port_reg(port, r::PortReg::kPfcThr, p)), cfg[p].xoff},
               {r::PFC_THR_XON.at(r::port_reg(port, r::PortReg::kPfcThr, p)), cfg[p].xon}});
  }
  for (unsigned i = 0; i < fmt::kNumPrio / 2; ++i) {
    const hw::Reg q = r::port_reg(port, r::PortReg::kQuanta, i);
    csr.write(q, {{r::QUANTA_Q_EVEN.at(q), cfg[std::size_t{2} * i].quanta},
                  {r::QUANTA_Q_ODD.at(q), cfg[std::size_t{2} * i + 1].quanta}});
  }
  // Thresholds first, then the enable: the port never runs lossless on
  // thresholds of the previous configuration.
  // The lossy share shrinks before the enable and never covers the lossless
  // reservation, so lossy packets cannot eat a paused priority's headroom.
  const hw::Reg lossy = r::port_reg(port, r::PortReg::kLossyLimit);
  csr.write(lossy, {{r::LOSSY_LIMIT_LIMIT.at(lossy),
                     static_cast<std::uint32_t>(info_.buf_cells - reserved)}});
  const hw::Reg en = r::port_reg(port, r::PortReg::kPfcEn);
  csr.write(en, {{r::PFC_EN_MASK.at(en), mask}});
  links_[port] = link;
}

void Switch::configure_wred(unsigned port, unsigned queue, const WredQueue& q) {
  check_port(port, "configure_wred");
  if (queue >= fmt::kNumPrio) {
    refuse("configure_wred: queue " + std::to_string(queue) + " does not exist (" +
           std::to_string(fmt::kNumPrio) + " per port)");
  }
  if (q.enable && q.kmin > q.kmax) {
    refuse("port " + std::to_string(port) + " queue " + std::to_string(queue) + ": Kmin " +
           std::to_string(q.kmin) + " is above Kmax " + std::to_string(q.kmax));
  }
  hw::Csr csr(*device_);
  const hw::Reg k = r::port_reg(port, r::PortReg::kWredK, queue);
  csr.write(k, {{r::WRED_K_KMIN.at(k), q.kmin}, {r::WRED_K_KMAX.at(k), q.kmax}});
  const std::size_t per_reg = r::kWredPmax.size();
  const hw::Reg pr = r::port_reg(port, r::PortReg::kWredP, static_cast<unsigned>(queue / per_reg));
  csr.modify(r::kWredPmax.at(queue % per_reg).at(pr), q.pmax);
  const hw::Reg en = r::port_reg(port, r::PortReg::kWredEn);
  const std::uint32_t m = csr.read(en);
  csr.write(en, q.enable ? (m | (1U << queue)) : (m & ~(1U << queue)));
}

void Switch::configure_scheduler(unsigned port, const SchedConfig& cfg) {
  check_port(port, "configure_scheduler");
  for (unsigned q = 0; q < fmt::kNumPrio; ++q) {
    if (((cfg.sp_mask >> q) & 1U) == 0 && cfg.weight[q] == 0) {
      refuse("port " + std::to_string(port) + " queue " + std::to_string(q) +
             ": a WDRR queue needs a weight of at least 1 flit");
    }
  }
  hw::Csr csr(*device_);
  for (unsigned i = 0; i < fmt::kNumPrio / 2; ++i) {
    const hw::Reg w = r::port_reg(port, r::PortReg::kWeight, i);
    csr.write(w, {{r::WEIGHT_W_EVEN.at(w), cfg.weight[std::size_t{2} * i]},
                  {r::WEIGHT_W_ODD.at(w), cfg.weight[std::size_t{2} * i + 1]}});
  }
  const hw::Reg s = r::port_reg(port, r::PortReg::kSched);
  csr.write(s, {{r::SCHED_SP_MASK.at(s), cfg.sp_mask}});
}

void Switch::configure_watchdog(const WatchdogConfig& cfg) {
  const auto check = [](std::uint32_t v, const char* what) {
    if (v == 0 || v > kMaxTime) {
      refuse(std::string("watchdog ") + what + " " + std::to_string(v) +
             " cycles is outside 1 .. " + std::to_string(kMaxTime));
    }
  };
  check(cfg.detect_cycles, "detection time");
  check(cfg.recover_cycles, "recovery time");
  check(cfg.window_cycles, "window");
  hw::Csr csr(*device_);
  csr.write(r::WD_DETECT_TIME, cfg.detect_cycles);
  csr.write(r::WD_RECOVER_TIME, cfg.recover_cycles);
  csr.write(r::WD_WINDOW, cfg.window_cycles);
  csr.write(r::WD_LIMIT, {{r::WD_LIMIT_LIMIT, cfg.limit}});
}

void Switch::configure_watchdog_port(unsigned port, const WatchdogPort& cfg) {
  check_port(port, "configure_watchdog_port");
  const hw::Reg w = r::port_reg(port, r::PortReg::kWdCtrl);
  hw::Csr(*device_).write(w, {{r::WD_CTRL_ENABLE.at(w), cfg.enable_mask},
                              {r::WD_CTRL_DROP_MODE.at(w), cfg.drop_mode ? 1U : 0U}});
}

void Switch::reenable_pfc(unsigned port, std::uint8_t prio_mask) {
  check_port(port, "reenable_pfc");
  hw::Csr(*device_).write(
      r::WD_REENABLE,
      {{r::WD_REENABLE_PORT, port}, {r::WD_REENABLE_PRIO_MASK, prio_mask}, {r::WD_REENABLE_GO, 1}});
}

std::array<fmt::WdState, fmt::kNumPrio> Switch::watchdog_state(unsigned port) {
  check_port(port, "watchdog_state");
  hw::Csr csr(*device_);
  csr.write(r::CNT_SEL, {{r::CNT_SEL_PORT, port}});
  const std::uint32_t v = csr.read(r::WD_STATUS_STATE);
  std::array<fmt::WdState, fmt::kNumPrio> out{};
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    const auto s = static_cast<fmt::WdState>((v >> (fmt::kWdStateWidth * p)) &
                                             ((1U << fmt::kWdStateWidth) - 1U));
    if (!fmt::is_known(s)) {
      throw hw::BusError("WD_STATUS of port " + std::to_string(port) + " priority " +
                         std::to_string(p) + " holds the undefined state " +
                         std::to_string(static_cast<unsigned>(s)));
    }
    out[p] = s;
  }
  return out;
}

void Switch::configure_remap(const RemapConfig& cfg) {
  if (info_.ports < r::kMaxPorts && (cfg.uplink_mask >> info_.ports) != 0) {
    refuse("remap: uplink mask names ports the switch does not have (" +
           std::to_string(info_.ports) + ")");
  }
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    if (cfg.map[p].prio >= fmt::kNumPrio || cfg.map[p].dscp >= 64) {
      refuse("remap: entry for priority " + std::to_string(p) + " maps to priority " +
             std::to_string(cfg.map[p].prio) + " / DSCP " + std::to_string(cfg.map[p].dscp) +
             " (priorities 0.." + std::to_string(fmt::kNumPrio - 1U) + ", DSCP 0..63)");
    }
  }
  hw::Csr csr(*device_);
  for (unsigned p = 0; p < fmt::kNumPrio; ++p) {
    const hw::Reg e = r::remap(p);
    csr.write(e, {{r::REMAP_NEW_PRIO.at(e), cfg.map[p].prio},
                  {r::REMAP_NEW_DSCP.at(e), cfg.map[p].dscp}});
  }
  csr.write(r::REMAP_CTRL, {{r::REMAP_CTRL_ENABLE, cfg.enable ? 1U : 0U},
                            {r::REMAP_CTRL_UPLINK_MASK, cfg.uplink_mask}});
}

std::uint32_t Switch::counter(unsigned port, unsigned prio, fmt::SwCounter kind) {
  check_port(port, "counter");
  if (prio >= fmt::kNumPrio) {
    refuse("counter: priority " + std::to_string(prio) + " does not exist");
  }
  hw::Csr csr(*device_);
  csr.write(r::CNT_SEL, {{r::CNT_SEL_PORT, port},
                         {r::CNT_SEL_PRIO, prio},
                         {r::CNT_SEL_KIND, static_cast<unsigned>(kind)}});
  return csr.read(r::CNT_VALUE);
}

void Switch::clear_counters() {
  const hw::Csr csr(*device_);
  const std::uint32_t ctrl = csr.read(r::CTRL);
  hw::Csr(*device_).write(r::CTRL, (ctrl & r::CTRL_ENABLE.mask) | r::CTRL_CNT_CLEAR.put(1));
}

std::uint32_t Switch::interrupt_status() { return hw::Csr(*device_).read(r::INTR_STATUS); }

void Switch::clear_interrupts(std::uint32_t mask) { hw::Csr(*device_).write(r::INTR_STATUS, mask); }

void Switch::set_combine(std::uint16_t mlid, const CombineEntry& entry) {
  const unsigned idx = mft_index(mlid, "set_combine");
  const std::string what = "set_combine: MLID " + hex_upper(mlid);
  if (entry.children == 0 || (info_.ports < 32 && (entry.children >> info_.ports) != 0)) {
    refuse(what + ": child mask " + hex_upper(entry.children) +
           " is empty or names ports the switch does not have (" + std::to_string(info_.ports) +
           ")");
  }
  std::uint32_t tree = entry.children;
  if (!entry.root) {
    check_port(entry.parent, "set_combine parent");
    if ((entry.children >> entry.parent & 1U) != 0) {
      refuse(what + ": parent port " + std::to_string(entry.parent) + " is also a child");
    }
    tree |= 1U << entry.parent;
  }
  const std::optional<std::uint32_t> mft_mask = mft(mlid);
  if (!mft_mask) {
    refuse(what + ": no MFT entry; program the MFT before the combine entry");
  }
  if (*mft_mask != tree) {
    refuse(
        what + ": children " + hex_upper(entry.children) +
        (entry.root ? std::string(" at the root") : " and parent " + std::to_string(entry.parent)) +
        " disagree with the MFT mask " + hex_upper(*mft_mask));
  }
  const std::uint32_t ctrl = kEntryValid | (entry.root ? kCombRoot : 0U) |
                             (static_cast<std::uint32_t>(entry.epoch) << kCombEpochShift) |
                             (entry.root ? 0U : entry.parent);
  table_write(kTableCombChildren, idx, entry.children);
  table_write(kTableCombCtrl, idx, ctrl);
  CombineEntry want = entry;
  if (want.root) {
    want.parent = 0;
  }
  const std::optional<CombineEntry> back = combine(mlid);
  if (!back || *back != want) {
    throw hw::BusError(what + ": the entry read back differs from the one written");
  }
}

void Switch::clear_combine(std::uint16_t mlid) {
  const unsigned idx = mft_index(mlid, "clear_combine");
  table_write(kTableCombCtrl, idx, 0);
  table_write(kTableCombChildren, idx, 0);
}

std::optional<CombineEntry> Switch::combine(std::uint16_t mlid) {
  const unsigned idx = mft_index(mlid, "combine");
  const std::uint32_t ctrl = table_read(kTableCombCtrl, idx);
  if ((ctrl & kEntryValid) == 0 || (ctrl & kCombRing) != 0) {
    return std::nullopt;
  }
  CombineEntry e;
  e.children = table_read(kTableCombChildren, idx);
  e.root = (ctrl & kCombRoot) != 0;
  e.parent = e.root ? 0U : (ctrl & kCombParentMask);
  e.epoch = static_cast<std::uint16_t>(ctrl >> kCombEpochShift);
  return e;
}

void Switch::check_ring_entry(std::uint16_t mlid, const RingCombineEntry& entry) {
  const std::string what = "set_ring_combine: MLID " + hex_upper(mlid);
  if (entry.phases < 1 || entry.phases > fmt::kCombPhases) {
    refuse(what + ": PHASES " + std::to_string(entry.phases) + " is outside 1 .. COMB_PHASES (" +
           std::to_string(fmt::kCombPhases) + ")");
  }
  if (info_.ports < 32 && (entry.children >> info_.ports) != 0) {
    refuse(what + ": child mask " + hex_upper(entry.children) +
           " names ports the switch does not have (" + std::to_string(info_.ports) + ")");
  }
  bool any_valid = false;
  for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
    const RingPhaseEntry& p = entry.phase[d];
    const std::string ph = what + " phase " + std::to_string(d);
    if (!p.valid) {
      if (p.origin || p.expect != 0) {
        refuse(ph + ": ORIGIN or EXPECT " + hex_upper(p.expect) + " on a phase that is not valid");
      }
      continue;
    }
    any_valid = true;
    if (d >= entry.phases) {
      refuse(ph + ": valid, but PHASES is " + std::to_string(entry.phases));
    }
    for (const auto& [port, name] : {std::pair{p.plus, "PLUS"}, std::pair{p.minus, "MINUS"}}) {
      if (port >= info_.ports) {
        refuse(ph + ": " + name + " port " + std::to_string(port) +
               " does not exist (the switch has " + std::to_string(info_.ports) + ")");
      }
      if ((entry.children >> port & 1U) != 0) {
        refuse(ph + ": " + name + " port " + std::to_string(port) + " is also a child");
      }
    }
    if (p.len < 2 || p.len > fmt::kCombRingMax) {
      refuse(ph + ": LEN " + std::to_string(p.len) + " is outside 2 .. COMB_RING_MAX (" +
             std::to_string(fmt::kCombRingMax) + ")");
    }
    if (p.pos >= p.len) {
      refuse(ph + ": POS " + std::to_string(p.pos) + " is not below LEN " + std::to_string(p.len));
    }
    if (p.len < 32 && (p.expect >> p.len) != 0) {
      refuse(ph + ": EXPECT " + hex_upper(p.expect) + " names positions at or beyond LEN " +
             std::to_string(p.len));
    }
    if ((p.expect >> p.pos & 1U) != 0) {
      refuse(ph + ": EXPECT " + hex_upper(p.expect) + " names the switch's own POS " +
             std::to_string(p.pos));
    }
  }
  if (entry.children == 0 && !any_valid) {
    refuse(what + ": no children and no valid phase (a switch with nothing to do has no entry)");
  }
  if (entry.children != 0) {
    const std::optional<std::uint32_t> mft_mask = mft(mlid);
    if (!mft_mask) {
      refuse(what + ": no MFT entry for the children " + hex_upper(entry.children) +
             "; program the MFT before the combine entry");
    }
    if ((entry.children & ~*mft_mask) != 0) {
      refuse(what + ": children " + hex_upper(entry.children) + " are not inside the MFT mask " +
             hex_upper(*mft_mask));
    }
  }
}

void Switch::set_ring_combine(std::uint16_t mlid, const RingCombineEntry& entry) {
  const unsigned idx = mft_index(mlid, "set_ring_combine");
  check_ring_entry(mlid, entry);
  table_write(kTableCombChildren, idx, entry.children);
  for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
    const RingPhaseEntry& p = entry.phase[d];
    const std::uint32_t geometry = p.valid ? kEntryValid | (p.origin ? kRingOrigin : 0U) |
                                                 p.len << kRingLenShift | p.pos << kRingPosShift |
                                                 p.minus << kRingMinusShift | p.plus
                                           : 0U;
    table_write(kTableRingGeometry, idx * kRingStride + d, geometry);
    table_write(kTableRingExpect, idx * kRingStride + d, p.valid ? p.expect : 0U);
  }
  table_write(kTableCombCtrl, idx,
              kEntryValid | kCombRing | entry.phases << kCombPhasesShift |
                  static_cast<std::uint32_t>(entry.epoch) << kCombEpochShift);
  const std::optional<RingCombineEntry> back = ring_combine(mlid);
  if (!back || *back != entry) {
    throw hw::BusError("set_ring_combine: MLID " + hex_upper(mlid) +
                       ": the entry read back differs from the one written");
  }
}

void Switch::clear_ring_combine(std::uint16_t mlid) {
  const unsigned idx = mft_index(mlid, "clear_ring_combine");
  table_write(kTableCombCtrl, idx, 0);
  table_write(kTableCombChildren, idx, 0);
  for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
    table_write(kTableRingGeometry, idx * kRingStride + d, 0);
    table_write(kTableRingExpect, idx * kRingStride + d, 0);
  }
}

std::optional<RingCombineEntry> Switch::ring_combine(std::uint16_t mlid) {
  const unsigned idx = mft_index(mlid, "ring_combine");
  const std::uint32_t ctrl = table_read(kTableCombCtrl, idx);
  if ((ctrl & kEntryValid) == 0 || (ctrl & kCombRing) == 0) {
    return std::nullopt;
  }
  RingCombineEntry e;
  e.children = table_read(kTableCombChildren, idx);
  e.phases = ctrl >> kCombPhasesShift & kCombPhasesMask;
  e.epoch = static_cast<std::uint16_t>(ctrl >> kCombEpochShift);
  for (unsigned d = 0; d < fmt::kCombPhases; ++d) {
    const std::uint32_t g = table_read(kTableRingGeometry, idx * kRingStride + d);
    if ((g & kEntryValid) == 0) {
      continue;
    }
    RingPhaseEntry& p = e.phase[d];
    p.valid = true;
    p.origin = (g & kRingOrigin) != 0;
    p.plus = g & 0xFFU;
    p.minus = g >> kRingMinusShift & 0xFFU;
    p.pos = g >> kRingPosShift & kRingPosMask;
    p.len = g >> kRingLenShift & kRingLenMask;
    p.expect = table_read(kTableRingExpect, idx * kRingStride + d);
  }
  return e;
}

}  // namespace syncfab::driver
