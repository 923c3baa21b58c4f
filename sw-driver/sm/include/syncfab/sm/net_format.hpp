#pragma once
// The ibnetdiscover / ibsim "net" topology text format.
//
// Written as ibnetdiscover prints it, which ibsim also reads: per node a
// `switchguid=0x..(..)` or `caguid=0x..` line (ibsim takes it as the node's
// GUID), then `Switch <ports> "S-<guid>"  # "<description>" base port 0 lid L
// lmc 0` or `Ca <ports> "H-<guid>"  # "<description>"`, then one `[port]` line
// per connected port with the peer's id and port. A node without a
// description (a generated one) writes its id there, so names survive a
// round trip.
//
// Read: that layout as real dumps hold it (chassis grouping lines, `[ext N]`
// port labels, tabs, ports in any order, parallel links, HCAs with several
// ports cabled) and ibsim's hand-written one (`Switch 8 "Switch1"`,
// `Hca 2 "Hca1"`, peers named by their id). A node is its id (the quoted
// name after the port count); the description in the comment is a label
// that may repeat (Fabric::name disambiguates it). Router (`Rt`) nodes are
// refused, naming the router. GUIDs follow ibsim: a guid line sets the next
// GUID of its node type, which then counts on (switches from 0x200000, CAs
// from 0x100000 with one GUID per port reserved). LIDs are kept when the
// file has them (switch header, CA port line) and assigned otherwise.
#include <iosfwd>
#include <string>

#include "syncfab/sm/fabric.hpp"

namespace syncfab::sm {

// Throws InputError (file name, line number, what is wrong) for an unknown
// peer node, a port out of range, an asymmetric link, a duplicate node id or
// GUID, a router, and any line it cannot parse. assign = false keeps only
// the file's LIDs (the caller cables links first, then calls assign_lids(),
// so that destinations past the LID space get the indices they had).
Fabric read_net(std::istream& in, const std::string& file_name, bool assign = true);
Fabric read_net_file(const std::string& path, bool assign = true);

void write_net(std::ostream& out, const Fabric& fabric);
void write_net_file(const std::string& path, const Fabric& fabric);

}  // namespace syncfab::sm
