// Combine entries for every group of a system (docs/group-barrier.md, "The
// switch's combine unit"): each tree read as a combine tree by the subnet
// manager (sm::combine_tree) and written, next to its MFT entries, into every
// switch of the tree through that switch's own driver, which checks the entry
// against the MFT and reads it back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "syncfab/sm/groups.hpp"
#include "syncfab/sm/multicast.hpp"
#include "system_fabric.hpp"

namespace syncfab::tb::system {

// Program the MFTs first (program_switches). epochs[g] is group g's first
// barrier epoch: its members' drivers must start their group contexts there.
// Returns the number of (switch, MLID) entries written; std::invalid_argument
// naming the group when a tree is not a tree (sm::combine_tree) or the driver
// refuses an entry.
std::size_t program_combine(SystemFabric& sys, std::span<const sm::Group> groups,
                            std::span<const sm::McTree> trees,
                            std::span<const std::uint16_t> epochs);

// How the switches combine a COMB_BARRIER: up the group's tree (the MFT's)
// or along the rings of a torus (docs/group-barrier.md, "Ring mode").
enum class CombScheme : std::uint8_t { kTree, kRing };

// Ring mode: every group's ring entries (sm::combine_rings on the fabric's
// torus layout) written into every switch that has members or carries a
// phase's shares, through its driver (which checks and reads them back).
// The MFTs must be programmed first (a member switch's children must be in
// its MFT entry). Same return and errors as program_combine, plus the
// FabricError of sm::torus_layout when the fabric is not a torus.
std::size_t program_ring_combine(SystemFabric& sys, std::span<const sm::Group> groups,
                                 std::span<const sm::McTree> trees,
                                 std::span<const std::uint16_t> epochs);

}  // namespace syncfab::tb::system
