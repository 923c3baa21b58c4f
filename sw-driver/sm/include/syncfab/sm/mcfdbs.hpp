#pragma once
// The multicast forwarding tables the trees program, written in the layout of
// OpenSM's `opensm.mcfdbs` dump (osm_dump.c, dump_mcast_routes): switches in
// node-GUID order (OpenSM walks its GUID-keyed switch map), a switch without
// any MFT entry prints nothing, else
//
//   <blank line>
//   Switch 0x<node guid, 16 hex digits>
//   LID    : Out Port(s)
//   0xC000 : 0x001  0x003
//
// one line per MLID in ascending order, each port as " 0x%03X " in ascending
// order (the trailing space is OpenSM's). The GUIDs resolve to node names
// through the net file written next to it.
#include <iosfwd>
#include <span>

#include "syncfab/sm/fabric.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

// Throws FabricError for an entry on a switch or port the fabric lacks, and
// for a tree whose MLID is outside 0xC000..0xFFFE or repeated.
void write_mcfdbs(std::ostream& out, const Fabric& fabric, std::span<const McTree> trees);

}  // namespace syncfab::sm
