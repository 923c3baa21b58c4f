#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
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

struct Token {
  std::string text;
  bool quoted = false;  // a quoted word is always a node, never the MLID
};

// Whitespace-separated words; a word in double quotes may hold spaces (node
// descriptions such as "node018 HCA-1"); '#' outside quotes starts a comment.
std::vector<Token> tokens(const std::string& raw) {
  std::vector<Token> out;
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
      out.push_back({raw.substr(i + 1, end - i - 1), true});
      i = end + 1;
    } else {
      const auto end = raw.find_first_of(" \t\r#", i);
      out.push_back({raw.substr(i, end == std::string::npos ? std::string::npos : end - i), false});
      i = end == std::string::npos ? raw.size() : end;
    }
  }
  return out;
}

bool needs_quotes(const std::string& name) {
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == ' ' || c == '#' || c == '"' || c == 0x7F) {
      return true;
    }
  }
  return name.rfind("0x", 0) == 0 || name.rfind("0X", 0) == 0;
}

// The node's name as a groups file can hold it: a quoted word ends at the
// next '"' and a line at '\n', so a name with either is written as the
// node's id or else its GUID, whichever reads back as this node.
std::string writable_name(const Fabric& fabric, NodeId n) {
  char guid[24];
  std::snprintf(guid, sizeof guid, "0x%" PRIx64, fabric.guid(n));
  for (const std::string& candidate : {fabric.name(n), fabric.id(n), std::string(guid)}) {
    if (candidate.find_first_of("\"\n") == std::string::npos && fabric.find(candidate) == n) {
      return candidate;
    }
  }
  throw FabricError("node \"" + printable(fabric.name(n)) +
                    "\" has no name, id or GUID a groups file can hold");
}

// The value of an unquoted "0x..." word, if it is one.
std::optional<std::uint64_t> hex_word(const Token& t) {
  if (t.quoted || t.text.size() < 3 || t.text[0] != '0' || (t.text[1] != 'x' && t.text[1] != 'X')) {
    return std::nullopt;
  }
  std::uint64_t v = 0;
  const char* b = t.text.data() + 2;
  const char* e = t.text.data() + t.text.size();
  const auto [p, ec] = std::from_chars(b, e, v, 16);
  if (ec != std::errc{} || p != e) {
    return std::nullopt;
  }
  return v;
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
    std::vector<Token> tok;
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
    // The MLID column: an unquoted first word 0x... in the multicast range,
    // always (a node GUID is larger; a node whose name looks like an MLID is
    // named in quotes, as write_groups does).
    const std::optional<std::uint64_t> hex = hex_word(tok[0]);
    const bool in_range = hex && *hex >= fmt::kMlidBase && *hex <= kLastMulticastLid;
    if (tok[0].text.size() > 1 && !tok[0].quoted && tok[0].text[0] == '0' &&
        (tok[0].text[1] == 'x' || tok[0].text[1] == 'X') && !in_range &&
        !fabric.find(tok[0].text)) {
      if (!hex) {
        fail(line, "bad MLID \"" + printable(tok[0].text) + "\"");
      }
      fail(line, "MLID " + printable(tok[0].text) + " outside the multicast range " +
                     hex_lid(fmt::kMlidBase) + ".." + hex_lid(kLastMulticastLid));
    }
    if (in_range) {
      g.mlid = static_cast<Lid>(*hex);
      if (const auto [it, fresh] = mlid_line.emplace(g.mlid, line); !fresh) {
        fail(line, "MLID " + tok[0].text + " already used at line " + std::to_string(it->second));
      }
      first = 1;
    }
    for (std::size_t i = first; i < tok.size(); ++i) {
      std::optional<NodeId> n;
      try {
        n = fabric.resolve(tok[i].text);
      } catch (const FabricError& e) {
        fail(line, e.what());
      }
      if (std::find(g.members.begin(), g.members.end(), *n) != g.members.end()) {
        fail(line, "node \"" + printable(tok[i].text) + "\" listed twice in one group");
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
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path, 0, "is a folder, not a groups file");
  }
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
      const std::string name = writable_name(fabric, n);
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
