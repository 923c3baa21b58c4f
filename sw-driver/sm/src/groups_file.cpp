#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <istream>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <unordered_map>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/groups.hpp"

namespace syncfab::sm {

namespace {

// Whitespace-separated words; a word in double quotes may hold spaces (node
// descriptions such as "node018 HCA-1"); '#' outside quotes starts a comment.
std::vector<std::string> tokens(const std::string& raw) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < raw.size()) {
    const char c = raw[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      break;
    } else if (c == '"') {
      const auto end = raw.find('"', i + 1);
      if (end == std::string::npos) {
        throw std::invalid_argument("unterminated quoted name");
      }
      out.push_back(raw.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      const auto end = raw.find_first_of(" \t\r#", i);
      out.push_back(raw.substr(i, end == std::string::npos ? std::string::npos : end - i));
      i = end == std::string::npos ? raw.size() : end;
    }
  }
  return out;
}

bool needs_quotes(const std::string& name) {
  return name.find_first_of(" \t#\"") != std::string::npos || name.rfind("0x", 0) == 0 ||
         name.rfind("0X", 0) == 0;
}

}  // namespace

GroupSet read_groups(std::istream& in, const std::string& file_name, const Fabric& fabric) {
  GroupSet out;
  std::unordered_map<Lid, std::size_t> mlid_line;
  std::string raw;
  std::size_t line = 0;
  auto fail = [&](std::size_t at, const std::string& what) {
    throw InputError(file_name, at, what);
  };
  while (std::getline(in, raw)) {
    ++line;
    std::vector<std::string> tok;
    try {
      tok = tokens(raw);
    } catch (const std::invalid_argument& e) {
      fail(line, e.what());
    }
    if (tok.empty()) {
      continue;
    }
    Group g;
    std::size_t first = 0;
    // An MLID column is a 0x... token that is not a node name.
    if ((tok[0].rfind("0x", 0) == 0 || tok[0].rfind("0X", 0) == 0) && !fabric.find(tok[0])) {
      unsigned v = 0;
      const char* b = tok[0].data() + 2;
      const char* e = tok[0].data() + tok[0].size();
      const auto [p, ec] = std::from_chars(b, e, v, 16);
      if (ec != std::errc{} || p != e || b == e) {
        fail(line, "bad MLID \"" + tok[0] + "\"");
      }
      if (v < fmt::kMlidBase || v > kLastMulticastLid) {
        fail(line, "MLID " + tok[0] + " outside the multicast range " + hex_lid(fmt::kMlidBase) +
                       ".." + hex_lid(kLastMulticastLid));
      }
      g.mlid = static_cast<Lid>(v);
      if (const auto [it, fresh] = mlid_line.emplace(g.mlid, line); !fresh) {
        fail(line, "MLID " + tok[0] + " already used at line " + std::to_string(it->second));
      }
      first = 1;
    }
    for (std::size_t i = first; i < tok.size(); ++i) {
      std::optional<NodeId> n;
      try {
        n = fabric.resolve(tok[i]);
      } catch (const FabricError& e) {
        fail(line, e.what());
      }
      if (std::find(g.members.begin(), g.members.end(), *n) != g.members.end()) {
        fail(line, "node \"" + tok[i] + "\" listed twice in one group");
      }
      g.members.push_back(*n);
    }
    if (g.members.size() < 2) {
      fail(line,
           "a group needs at least two members, this one has " + std::to_string(g.members.size()));
    }
    if (out.groups.size() >= kMulticastLidCount) {
      fail(line, "more groups than the multicast LID space (" + std::to_string(kMulticastLidCount) +
                     " MLIDs)");
    }
    std::sort(g.members.begin(), g.members.end());
    out.groups.push_back(std::move(g));
  }
  if (in.bad()) {
    fail(line, "read error");
  }
  Lid next = fmt::kMlidBase;
  for (Group& g : out.groups) {
    if (g.mlid != 0) {
      continue;
    }
    while (mlid_line.count(next) != 0) {
      ++next;
    }
    g.mlid = next;
    mlid_line.emplace(next, 0);
  }
  return out;
}

GroupSet read_groups_file(const std::string& path, const Fabric& fabric) {
  std::ifstream in(path);
  if (!in) {
    throw InputError(path, 0, "cannot open groups file");
  }
  return read_groups(in, path, fabric);
}

void write_groups(std::ostream& out, const Fabric& fabric, const GroupSet& groups) {
  for (const Group& g : groups.groups) {
    char mlid[8];
    std::snprintf(mlid, sizeof mlid, "0x%04x", static_cast<unsigned>(g.mlid));
    out << mlid;
    for (NodeId n : g.members) {
      const std::string& name = fabric.name(n);
      if (needs_quotes(name)) {
        out << " \"" << name << '"';
      } else {
        out << ' ' << name;
      }
    }
    out << '\n';
  }
}

}  // namespace syncfab::sm
