#pragma once
// The ibnetdiscover / ibsim "net" topology text format.
//
// Written as ibnetdiscover prints it, which ibsim also reads: per node a
// `switchguid=0x..(..)` or `caguid=0x..` line (ibsim takes it as the node's
// GUID), then `Switch <ports> "S-<guid>"  # "<name>" base port 0 lid L lmc 0`
// or `Ca <ports> "H-<guid>"  # "<name>"`, then one `[port]` line per connected
// port with the peer's id and port. Node names travel as the NodeDescription
// in the comment, so they survive a round trip.
//
// Read: that layout and ibsim's hand-written one (`Switch 8 "Switch1"`,
// `Hca 2 "Hca1"`, peers named by their id). A node's name is its description
// when the header has one, else its id. GUIDs follow ibsim: a guid line sets
// the next GUID of its node type, which then counts on (switches from
// 0x200000, CAs from 0x100000 with one GUID per port reserved). LIDs are kept when
// the file has them (switch header, CA port line) and assigned otherwise.
#include <iosfwd>
#include <string>

#include "syncfab/sm/fabric.hpp"

namespace syncfab::sm {

// Throws InputError (file name, line number, what is wrong) for an unknown
// peer node, a port out of range, an asymmetric link, a duplicate node id or
// name, and any line it cannot parse.
Fabric read_net(std::istream& in, const std::string& file_name);
Fabric read_net_file(const std::string& path);

void write_net(std::ostream& out, const Fabric& fabric);
void write_net_file(const std::string& path, const Fabric& fabric);

}  // namespace syncfab::sm
