#pragma once
// Summaries syncfab-route reports in stats.json: EFI per directed link (as
// McLoad counts it), tree heights, and the process's peak memory.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

struct EfiSummary {
  McLoad::Stats stats;
  // [k] = connected directed links out of a switch with EFI k; [0] counts the
  // unused ones, so the entries sum to the number of such links.
  std::vector<std::size_t> switch_links;  // switch-to-switch
  std::vector<std::size_t> all_links;     // switch-to-switch and switch-to-node
};
EfiSummary summarize_efi(const Fabric& fabric, const McLoad& load);

struct HeightSummary {
  int min = 0;
  int max = 0;
  double mean = 0;
  std::vector<std::size_t> histogram;  // [h] = trees of height h
};
// All zero for no trees.
HeightSummary summarize_heights(std::span<const McTree> trees);

// Peak resident set size of this process so far (getrusage ru_maxrss), bytes.
std::uint64_t peak_rss_bytes();

}  // namespace syncfab::sm
