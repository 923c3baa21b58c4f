#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <istream>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/net_format.hpp"

namespace syncfab::sm {

namespace {

struct PortLine {
  int port = 0;
  std::string peer_id;
  int peer_port = 1;  // ibsim's default when the peer port is omitted
  Lid lid = 0;
  std::size_t line = 0;
};

struct Record {
  NodeType type = NodeType::kSwitch;
  int ports = 0;
  std::string id;
  std::string description;  // the NodeDescription of the header's comment, if any
  std::uint64_t guid = 0;
  Lid lid = 0;
  std::size_t line = 0;
  std::vector<PortLine> port_lines;
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

class Parser {
 public:
  Parser(std::istream& in, std::string file, bool assign)
      : in_(in), file_(std::move(file)), assign_(assign) {}

  Fabric run() {
    std::string raw;
    while (std::getline(in_, raw)) {
      ++line_;
      parse_line(trim(raw));
    }
    return build();
  }

 private:
  [[noreturn]] void fail(std::size_t line, const std::string& what) const {
    throw InputError(file_, line, what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail(line_, what); }

  // Reads an unsigned integer at the front of s (decimal, or hex with 0x).
  std::optional<unsigned long long> number(std::string_view& s, int base = 10) const {
    if (base == 16 && (starts_with(s, "0x") || starts_with(s, "0X"))) {
      s.remove_prefix(2);
    }
    unsigned long long v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc{} || ptr == s.data()) {
      return std::nullopt;
    }
    s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
    return v;
  }

  std::string quoted(std::string_view& s, const char* what) const {
    s = trim(s);
    if (s.empty() || s.front() != '"') {
      fail(std::string("expected a quoted ") + what);
    }
    const auto end = s.find('"', 1);
    if (end == std::string_view::npos) {
      fail(std::string("unterminated quoted ") + what);
    }
    std::string v(s.substr(1, end - 1));
    s.remove_prefix(end + 1);
    if (v.empty()) {
      fail(std::string("empty ") + what);
    }
    // A name travels into groups files, dumps and messages, one per line.
    for (const char c : v) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
        fail(std::string("control character in ") + what + " \"" + printable(v) + "\"");
      }
    }
    return v;
  }

  static std::optional<Lid> lid_after(std::string_view s) {
    const auto at = s.find("lid ");
    if (at == std::string_view::npos) {
      return std::nullopt;
    }
    s.remove_prefix(at + 4);
    unsigned v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || v > 0xFFFF) {
      return std::nullopt;
    }
    return static_cast<Lid>(v);
  }

  void parse_line(std::string_view s) {
    if (s.empty()) {
      current_ = nullptr;
      return;
    }
    if (s.front() == '#') {
      return;
    }
    if (s.front() == '[') {
      return parse_port(s);
    }
    current_ = nullptr;
    if (starts_with(s, "Switch")) {
      return parse_header(s.substr(6), NodeType::kSwitch);
    }
    if (starts_with(s, "Hca")) {
      return parse_header(s.substr(3), NodeType::kHca);
    }
    if (starts_with(s, "Ca")) {
      return parse_header(s.substr(2), NodeType::kHca);
    }
    if (starts_with(s, "switchguid")) {
      return parse_guid(s, next_switch_guid_);
    }
    if (starts_with(s, "caguid") || starts_with(s, "hcaguids")) {
      return parse_guid(s, next_ca_guid_);
    }
    // Chassis grouping (ibnetdiscover -g): "Chassis N (guid ..)" and
    // "Hostname: .." lines; the chassis' switches and CAs follow as usual.
    for (std::string_view ignored : {"vendid", "devid", "sysimgguid", "Non-Chassis Nodes",
                                     "Chassis", "Hostname:", "width", "speed", "rtguid"}) {
      if (starts_with(s, ignored)) {
        return;
      }
    }
    if (starts_with(s, "Rt")) {
      return parse_router(s.substr(2));
    }
    for (std::string_view unsupported : {"include", "module", "do"}) {
      if (starts_with(s, unsupported)) {
        fail("the ibsim directive \"" + std::string(unsupported) + "\" is not supported");
      }
    }
    fail("unrecognised line \"" + printable(s, 40) + "\"");
  }

  // A router joins subnets; this subnet manager routes one subnet, and a
  // router is neither a switch it can program nor an end node it can route
  // to. Refused with its id so the user can cut it (and its links) out.
  [[noreturn]] void parse_router(std::string_view s) {
    s = trim(s);
    number(s);
    std::string id = "?";
    s = trim(s);
    if (!s.empty() && s.front() == '"') {
      id = quoted(s, "node id");
    }
    fail("router node \"" + id +
         "\": routers are not supported (a route stays inside one subnet); remove the router "
         "and the port lines that name it");
  }

  void parse_guid(std::string_view s, std::uint64_t& next) {
    const auto eq = s.find('=');
    if (eq == std::string_view::npos) {
      fail("guid line without '='");
    }
    s.remove_prefix(eq + 1);
    const auto v = number(s, 16);
    if (!v || *v == 0) {
      fail("bad GUID value");
    }
    next = *v;
  }

  void parse_header(std::string_view s, NodeType type) {
    const char* kind = type == NodeType::kSwitch ? "Switch" : "Ca";
    s = trim(s);
    const auto ports = number(s);
    if (!ports || *ports < 1 || *ports > static_cast<unsigned>(kMaxPorts)) {
      fail(std::string(kind) + " header: port count must be 1.." + std::to_string(kMaxPorts));
    }
    Record r;
    r.type = type;
    r.ports = static_cast<int>(*ports);
    r.id = quoted(s, "node id");
    r.line = line_;
    const auto hash = s.find('#');
    if (hash != std::string_view::npos) {
      std::string_view c = trim(s.substr(hash + 1));
      if (!c.empty() && c.front() == '"') {
        r.description = quoted(c, "node description");
      }
      if (type == NodeType::kSwitch) {
        r.lid = lid_after(c).value_or(0);
      }
    }
    // ibsim: a guid line sets the next GUID of its type; nodes count on.
    if (type == NodeType::kSwitch) {
      r.guid = next_switch_guid_++;
    } else {
      r.guid = next_ca_guid_;
      next_ca_guid_ += static_cast<std::uint64_t>(r.ports) + 1;
    }
    if (!ids_.emplace(r.id, records_.size()).second) {
      fail("duplicate node id \"" + printable(r.id) + "\" (first at line " +
           std::to_string(records_[ids_[r.id]].line) + ")");
    }
    records_.push_back(std::move(r));
    current_ = &records_.back();
  }

  void parse_port(std::string_view s) {
    if (current_ == nullptr) {
      fail("port line outside a Switch/Ca block");
    }
    Record& r = *current_;
    s.remove_prefix(1);
    const auto p = number(s);
    if (!p || s.empty() || s.front() != ']') {
      fail("bad port number in \"[...]\"");
    }
    s.remove_prefix(1);
    skip_ext_port(s);
    if (*p < 1 || *p > static_cast<unsigned>(r.ports)) {
      fail("port " + std::to_string(*p) + " out of range: \"" + printable(r.id) +
           "\" has ports 1.." + std::to_string(r.ports));
    }
    PortLine pl;
    pl.port = static_cast<int>(*p);
    pl.line = line_;
    for (const PortLine& o : r.port_lines) {
      if (o.port == pl.port) {
        fail("port " + std::to_string(pl.port) + " of \"" + printable(r.id) +
             "\" listed twice (first at line " + std::to_string(o.line) + ")");
      }
    }
    if (!s.empty() && s.front() == '(') {
      const auto close = s.find(')');
      if (close == std::string_view::npos) {
        fail("unterminated port GUID");
      }
      s.remove_prefix(close + 1);
    }
    pl.peer_id = quoted(s, "peer node id");
    if (!s.empty() && s.front() == '[') {
      s.remove_prefix(1);
      const auto q = number(s);
      if (!q || s.empty() || s.front() != ']') {
        fail("bad peer port number");
      }
      s.remove_prefix(1);
      if (*q < 1 || *q > static_cast<unsigned>(kMaxPorts)) {
        fail("peer port " + std::to_string(*q) + " out of range 1.." + std::to_string(kMaxPorts));
      }
      pl.peer_port = static_cast<int>(*q);
    }
    const auto hash = s.find('#');
    if (r.type == NodeType::kHca && hash != std::string_view::npos) {
      pl.lid = lid_after(s.substr(hash + 1)).value_or(0);
    }
    r.port_lines.push_back(std::move(pl));
  }

  // ibnetdiscover -g prints a chassis port's front-panel number after the
  // port, "[3][ext 7]": a label, not a port.
  static void skip_ext_port(std::string_view& s) {
    if (starts_with(s, "[ext")) {
      const auto close = s.find(']');
      s.remove_prefix(close == std::string_view::npos ? s.size() : close + 1);
    }
  }

  const PortLine* find_port(const Record& r, int port) const {
    for (const PortLine& pl : r.port_lines) {
      if (pl.port == port) {
        return &pl;
      }
    }
    return nullptr;
  }

  Fabric build() {
    if (records_.empty()) {
      fail(0, "no Switch or Ca line: not a net file, or an empty one");
    }
    Fabric f;
    for (const Record& r : records_) {
      try {
        f.add_node(r.type, r.id, r.ports, r.guid, r.description);
      } catch (const FabricError& e) {
        fail(r.line, e.what());
      }
    }
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const Record& r = records_[i];
      for (const PortLine& pl : r.port_lines) {
        const auto it = ids_.find(pl.peer_id);
        if (it == ids_.end()) {
          fail(pl.line, "unknown node \"" + printable(pl.peer_id) + "\" on port " +
                            std::to_string(pl.port) + " of \"" + printable(r.id) + "\"");
        }
        const Record& o = records_[it->second];
        if (pl.peer_port > o.ports) {
          fail(pl.line, "peer port " + std::to_string(pl.peer_port) + " out of range: \"" +
                            printable(o.id) + "\" has ports 1.." + std::to_string(o.ports));
        }
        const PortLine* back = find_port(o, pl.peer_port);
        if (back == nullptr) {
          fail(pl.line, "asymmetric link: \"" + printable(r.id) + "\"[" + std::to_string(pl.port) +
                            "] -> \"" + o.id + "\"[" + std::to_string(pl.peer_port) + "], but \"" +
                            printable(o.id) + "\" lists nothing on port " +
                            std::to_string(pl.peer_port));
        }
        if (back->peer_id != r.id || back->peer_port != pl.port) {
          fail(pl.line, "asymmetric link: \"" + printable(r.id) + "\"[" + std::to_string(pl.port) +
                            "] -> \"" + o.id + "\"[" + std::to_string(pl.peer_port) + "], but \"" +
                            printable(o.id) + "\"[" + std::to_string(pl.peer_port) + "] -> \"" +
                            printable(back->peer_id) + "\"[" + std::to_string(back->peer_port) +
                            "] (line " + std::to_string(back->line) + ")");
        }
        const auto a = static_cast<NodeId>(i);
        const auto b = static_cast<NodeId>(it->second);
        if (a == b && pl.port == pl.peer_port) {
          fail(pl.line, "port linked to itself");
        }
        // Each link appears twice; connect it once, from its smaller end.
        if (std::pair(a, pl.port) < std::pair(b, pl.peer_port)) {
          f.connect(a, static_cast<PortNum>(pl.port), b, static_cast<PortNum>(pl.peer_port));
        }
      }
    }
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const Record& r = records_[i];
      const auto n = static_cast<NodeId>(i);
      try {
        if (r.type == NodeType::kSwitch && r.lid != 0) {
          f.set_lid(n, 0, r.lid);
        }
        for (const PortLine& pl : r.port_lines) {
          if (r.type == NodeType::kHca && pl.lid != 0) {
            f.set_lid(n, static_cast<PortNum>(pl.port), pl.lid);
          }
        }
      } catch (const FabricError& e) {
        fail(r.line, e.what());
      }
    }
    if (assign_) {
      try {
        f.assign_lids();
      } catch (const FabricError& e) {
        fail(line_, e.what());
      }
    }
    return f;
  }

  std::istream& in_;
  std::string file_;
  bool assign_ = true;
  std::size_t line_ = 0;
  std::vector<Record> records_;  // reserve-free: current_ is re-taken after push_back
  Record* current_ = nullptr;
  std::unordered_map<std::string, std::size_t> ids_;
  std::uint64_t next_switch_guid_ = 0x200000;
  std::uint64_t next_ca_guid_ = 0x100000;
};

}  // namespace

Fabric read_net(std::istream& in, const std::string& file_name, bool assign) {
  return Parser(in, file_name, assign).run();
}

Fabric read_net_file(const std::string& path, bool assign) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path, 0, "is a folder, not a net file");
  }
  std::ifstream in(path);
  if (!in) {
    throw InputError(path, 0, "cannot open net file");
  }
  return read_net(in, path, assign);
}

}  // namespace syncfab::sm
