// A GTKWave save file for the FST of a system: the checked-in save files of
// nic_top and switch_top (tb/waves/, written for a model traced as "dut")
// put one after the other, each moved under its node's instance, wrapped in
// a group named after it and matched against the FST's own signal names.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace syncfab::tb::system {

struct WaveView {
  std::string nic;  // instance names in the FST (the nodes' names)
  std::string leaf;
  std::string spine;  // empty: none shown
};

// `dir` holds nic_top.gtkw and switch_top.gtkw. Each of their signals is
// written as the FST names it (a vector's range as this shape declares it);
// returns how many the FST lacks (left out). Throws std::runtime_error
// naming a file it cannot read or write.
std::size_t write_gtkw(const std::filesystem::path& out, const std::filesystem::path& fst,
                       const WaveView& view, const std::filesystem::path& dir);

}  // namespace syncfab::tb::system
