// A GTKWave save file for the FST of a whole system: the checked-in save
// files of nic_top and switch_top (tb/waves/, written for a model traced as
// "dut") put one after the other, each moved under its node's instance and
// wrapped in a group named after it.
#pragma once

#include <filesystem>
#include <string>

namespace syncfab::tb::system {

struct WaveView {
  std::string nic;  // instance names in the FST (the nodes' names)
  std::string leaf;
  std::string spine;  // empty: none shown
};

// `dir` holds nic_top.gtkw and switch_top.gtkw. Throws std::runtime_error
// naming a save file it cannot read or the file it cannot write.
void write_gtkw(const std::filesystem::path& out, const std::filesystem::path& fst,
                const WaveView& view, const std::filesystem::path& dir);

}  // namespace syncfab::tb::system
