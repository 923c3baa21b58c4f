#include "program.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "switch_fabric_sm.hpp"

namespace syncfab::tb::system {

ProgramReport program_switches(SystemFabric& sys, const sm::Lft& lft,
                               std::span<const sm::McTree> trees, const sm::PortGroups* groups) {
  const sm::Fabric& smf = sys.sm();
  if (lft.fabric().switch_count() != smf.switch_count()) {
    throw std::invalid_argument("program_switches: the LFT is of another fabric (" +
                                std::to_string(lft.fabric().switch_count()) + " switches, not " +
                                std::to_string(smf.switch_count()) + ")");
  }
  std::vector<std::vector<driver::LftEntry>> lfts(sys.switch_count());
  std::vector<std::map<std::uint16_t, std::uint32_t>> mfts(sys.switch_count());
  std::vector<std::vector<driver::PortGroupEntry>> pgs(sys.switch_count());
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    const SwitchShape shape = sys.sw(s).shape();
    const std::string& name = sys.sw(s).name();
    const unsigned ports = sys.sw(s).port_count();
    lfts[s] = groups != nullptr ? swfab::lft_entries(lft, *groups, s, ports)
                                : swfab::lft_entries(lft, s, ports);
    if (groups != nullptr) {
      pgs[s] = swfab::group_entries(*groups, s, ports);
    }
    for (const driver::LftEntry& e : lfts[s]) {
      if (e.lid >= shape.lft_entries) {
        throw std::invalid_argument("switch " + name + ": LID " + sm::hex_lid(e.lid) +
                                    " is past its LFT (" + std::to_string(shape.lft_entries) +
                                    " entries)");
      }
    }
    mfts[s] = swfab::mft_masks(trees, s, sys.sw(s).port_count());
    for (const auto& [mlid, mask] : mfts[s]) {
      if (mlid < fmt::kMlidBase || mlid - fmt::kMlidBase >= static_cast<int>(shape.mft_entries)) {
        throw std::invalid_argument("switch " + name + ": MLID " + sm::hex_lid(mlid) +
                                    " is past its MFT (" + std::to_string(shape.mft_entries) +
                                    " entries from " + sm::hex_lid(fmt::kMlidBase) + ")");
      }
    }
  }
  ProgramReport rep;
  const std::uint64_t t0 = sys.cycle();
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    driver::Switch& d = sys.sw(s).driver();
    if (!pgs[s].empty()) {  // none: not a bus access more than without groups
      d.program_port_groups(pgs[s]);
      rep.port_groups += pgs[s].size();
    }
    d.program_lft(lfts[s]);
    rep.lft_entries += lfts[s].size();
    for (const driver::LftEntry& e : lfts[s]) {
      rep.group_entries += e.group ? 1 : 0;
    }
    for (const auto& [mlid, mask] : mfts[s]) {
      d.set_mft(mlid, mask);
      ++rep.mft_entries;
    }
    d.enable(true);
  }
  rep.cycles = sys.cycle() - t0;
  return rep;
}

void configure_pfc(SystemFabric& sys, const driver::PfcTiming& timing,
                   const driver::PfcPortConfig& cfg, unsigned max_pkt_flits) {
  for (unsigned s = 0; s < sys.switch_count(); ++s) {
    driver::Switch& d = sys.sw(s).driver();
    d.set_pfc_timing(timing);
    for (unsigned p = 0; p < sys.sw(s).port_count(); ++p) {
      if (const Link* l = sys.switch_link(s, p)) {
        d.configure_pfc(p, cfg, driver::LinkParams{l->delay(), max_pkt_flits});
      }
    }
  }
  sys.set_host_cycles_per_quantum(timing.cyc_per_quantum);
}

}  // namespace syncfab::tb::system
