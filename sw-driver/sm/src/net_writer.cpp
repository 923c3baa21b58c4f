#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <string>
#include <unordered_set>
#include <vector>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/net_format.hpp"

namespace syncfab::sm {

namespace {

std::string hex(std::uint64_t v, bool pad) {
  char buf[24];
  std::snprintf(buf, sizeof buf, pad ? "%016" PRIx64 : "%" PRIx64, v);
  return buf;
}

// A node without a description whose id is another node's description, or
// reads as one disambiguated ("description (id)"), keeps its id and is
// written without one: written as a description, its name would be shared
// with the other node's after a read.
bool keeps_id(const Fabric& f, NodeId n, const std::unordered_set<std::string>& descriptions) {
  if (!f.description(n).empty()) {
    return false;
  }
  const std::string& id = f.id(n);
  const auto open = id.rfind(" (");
  return descriptions.count(id) != 0 || (open != std::string::npos && id.back() == ')' &&
                                         descriptions.count(id.substr(0, open)) != 0);
}

// A generated node has no description: its name travels as one, so that it
// is the node's name again when the file is read back.
std::string description(const Fabric& f, NodeId n,
                        const std::unordered_set<std::string>& descriptions) {
  if (keeps_id(f, n, descriptions)) {
    return {};
  }
  return f.description(n).empty() ? f.id(n) : f.description(n);
}

// The node's description as the comment's quoted field; nothing for a node
// written without one.
std::string quoted_description(const Fabric& f, NodeId n,
                               const std::unordered_set<std::string>& descriptions) {
  const std::string d = description(f, n, descriptions);
  return d.empty() ? std::string{} : "\"" + d + "\" ";
}

// The id each node is written with. A node read from a file (it has a
// description) keeps its id: a name that disambiguates a shared description
// carries the id, and must read back the same. A generated node gets
// ibnetdiscover's id from its GUID (its name travels as the description),
// counted on in the rare case that a kept id or a written description
// already is that text.
std::vector<std::string> node_ids(const Fabric& f,
                                  const std::unordered_set<std::string>& descriptions) {
  std::vector<std::string> ids(f.node_count());
  std::unordered_set<std::string> used;
  // A new id must not be a text written as some node's description either:
  // read back, the two would share a name.
  for (NodeId n = 0; n < f.node_count(); ++n) {
    if (!f.description(n).empty() || keeps_id(f, n, descriptions)) {
      ids[n] = f.id(n);
      used.insert(ids[n]);
    }
    if (const std::string d = description(f, n, descriptions); !d.empty()) {
      used.insert(d);
    }
  }
  for (NodeId n = 0; n < f.node_count(); ++n) {
    if (ids[n].empty()) {
      const std::string base = (f.is_switch(n) ? "S-" : "H-") + hex(f.guid(n), true);
      std::string id = base;
      for (int k = 1; used.count(id) != 0; ++k) {
        id = base + "." + std::to_string(k);
      }
      ids[n] = id;
      used.insert(id);
    }
  }
  return ids;
}

}  // namespace

void write_net(std::ostream& out, const Fabric& f) {
  out << "#\n# Topology file: written by syncfab (ibnetdiscover layout)\n#\n# " << f.switch_count()
      << " switches, " << f.hca_count() << " end nodes\n";
  std::unordered_set<std::string> descriptions;
  for (NodeId n = 0; n < f.node_count(); ++n) {
    if (!f.description(n).empty()) {
      descriptions.insert(f.description(n));
    }
  }
  const std::vector<std::string> id = node_ids(f, descriptions);
  for (NodeId n = 0; n < f.node_count(); ++n) {
    const std::string g = hex(f.guid(n), false);
    out << "\nvendid=0x0\ndevid=0x0\nsysimgguid=0x" << g << "\n";
    if (f.is_switch(n)) {
      out << "switchguid=0x" << g << "(" << g << ")\n";
      out << "Switch\t" << f.num_ports(n) << " \"" << id[n] << "\"\t\t# "
          << quoted_description(f, n, descriptions) << "base port 0 lid " << f.lid(n) << " lmc 0\n";
    } else {
      out << "caguid=0x" << g << "\n";
      out << "Ca\t" << f.num_ports(n) << " \"" << id[n] << "\"";
      if (const std::string d = quoted_description(f, n, descriptions); !d.empty()) {
        out << "\t\t# " << d.substr(0, d.size() - 1);
      }
      out << "\n";
    }
    for (int pi = 1; pi <= f.num_ports(n); ++pi) {
      const auto p = static_cast<PortNum>(pi);
      const PortPeer o = f.peer(n, p);
      if (!o.connected()) {
        continue;
      }
      out << "[" << pi << "]";
      if (!f.is_switch(n)) {
        out << "(" << hex(f.port_guid(n, p), false) << ")";
      }
      out << "\t\"" << id[o.node] << "\"[" << static_cast<int>(o.port) << "]";
      if (!f.is_switch(o.node)) {
        out << "(" << hex(f.port_guid(o.node, o.port), false) << ")";
      }
      out << "\t\t# ";
      if (!f.is_switch(n)) {
        out << "lid " << f.lid(n, p) << " lmc 0 ";
      }
      out << quoted_description(f, o.node, descriptions) << "lid " << f.lid(o.node, o.port)
          << " 4xQDR\n";
    }
  }
}

void write_net_file(const std::string& path, const Fabric& f) {
  std::ofstream out(path);
  if (!out) {
    throw FabricError("cannot write net file \"" + path + "\"");
  }
  write_net(out, f);
  out.flush();
  if (!out) {
    throw FabricError("error writing net file \"" + path + "\"");
  }
}

}  // namespace syncfab::sm
