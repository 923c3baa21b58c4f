#pragma once
// Multicast groups: the MPI-style patterns of the FULB-MC evaluation and the
// groups.txt file (one line per group: optional MLID in hex, then member node
// names).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "syncfab/sm/fabric.hpp"

namespace syncfab::sm {

struct Group {
  Lid mlid = 0;
  std::vector<NodeId> members;  // sorted, each node once
};

struct GroupSet {
  std::vector<Group> groups;
  // Pattern groups whose processes all sat on one node: no fabric multicast
  // is needed for them, so they are left out and counted here.
  std::size_t single_node_groups = 0;
};

enum class Placement : std::uint8_t {
  kAware,    // rank r on the (r / ppn)-th end node in generator order
  kUnaware,  // process slots shuffled with the seed
};

struct PatternSpec {
  enum class Kind : std::uint8_t { kGrid2D, kGrid3D, kRandom } kind = Kind::kGrid2D;
  // Grid dimensions (2D: dims[0] rows x dims[1] columns; 3D: all three),
  // ranks row-major (last dimension fastest, as MPI_Cart_create). The grid
  // uses the first product-of-dims ranks; groups come rows first.
  int dims[3] = {0, 0, 0};
  // Random: `count` groups of `size` distinct ranks among all processes.
  int count = 0;
  int size = 0;
  int processes_per_node = 1;  // 1 or 4 in the paper
  Placement placement = Placement::kAware;
  std::uint64_t seed = 1;
};

// Builds the groups (members = end nodes, deduplicated) and gives them MLIDs
// from 0xC000 in order. Throws FabricError for a grid larger than the
// processes, a bad size, or more groups than the MLID space (16,383).
GroupSet make_groups(const Fabric& fabric, const PatternSpec& spec);

// Text form of a pattern, e.g. "grid2d:160x100", "grid3d:20x20x40",
// "random:count=1000,size=16"; placement and ppn are separate options.
PatternSpec parse_pattern(std::string_view text);

// groups.txt. Reading: '#' comments and blank lines skipped; a line is an
// optional MLID (0x...) then at least two member names. Groups without MLID
// get the lowest free ones after all explicit MLIDs are known. Throws
// InputError (file:line) for an unknown node, a node listed twice, a group
// with fewer than two members, a bad or repeated MLID, or more groups than
// the MLID space.
GroupSet read_groups(std::istream& in, const std::string& file_name, const Fabric& fabric);
GroupSet read_groups_file(const std::string& path, const Fabric& fabric);
// Writing names each member so that it reads back as the same node: its
// name, or where the name holds a '"' or a line break, its id or GUID
// (FabricError if none of them would).
void write_groups(std::ostream& out, const Fabric& fabric, const GroupSet& groups);

inline constexpr std::size_t kMulticastLidCount = kLastMulticastLid - fmt::kMlidBase + 1;

}  // namespace syncfab::sm
