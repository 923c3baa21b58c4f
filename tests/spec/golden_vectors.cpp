#include "golden_vectors.hpp"

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace syncfab::fmt::test {
namespace {

using nlohmann::json;

template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::runtime_error("golden vectors: " + where + ": " + what);
}

std::uint64_t parse_value(const json& v, const std::string& where) {
  if (v.is_boolean()) {
    return v.get<bool>() ? 1U : 0U;
  }
  if (v.is_number_unsigned()) {
    return v.get<std::uint64_t>();
  }
  if (v.is_number_integer()) {
    fail(where, "negative value " + v.dump());
  }
  if (v.is_string()) {
    const auto s = v.get<std::string>();
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
      fail(where, cat(R"(expected a number or a "0x..." string, got ")", s, "\""));
    }
    std::uint64_t out = 0;
    for (std::size_t i = 2; i < s.size(); ++i) {
      const int c = std::tolower(static_cast<unsigned char>(s[i]));
      if (std::isxdigit(c) == 0) {
        fail(where, "bad hex digit in \"" + s + "\"");
      }
      out = (out << 4U) | static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return out;
  }
  fail(where, "unexpected value " + v.dump());
}

void flatten(const json& v, const std::string& path, const std::string& where, FieldValues& out) {
  if (v.is_object()) {
    for (const auto& [key, sub] : v.items()) {
      flatten(sub, path.empty() ? key : cat(path, ".", key), where, out);
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      flatten(v[i], path + "[" + std::to_string(i) + "]", where, out);
    }
  } else {
    out[path] = parse_value(v, where + " field " + path);
  }
}

std::vector<std::uint8_t> parse_hex(const json& v, const std::string& where) {
  std::string digits;
  const auto add = [&](const json& line) {
    if (!line.is_string()) {
      fail(where, "hex must be a string or a list of strings");
    }
    for (const char c : line.get<std::string>()) {
      if (std::isspace(static_cast<unsigned char>(c)) != 0) {
        continue;
      }
      if (std::isxdigit(static_cast<unsigned char>(c)) == 0) {
        fail(where, std::string("bad hex character '") + c + "'");
      }
      digits.push_back(c);
    }
  };
  if (v.is_array()) {
    for (const auto& line : v) {
      add(line);
    }
  } else {
    add(v);
  }
  if (digits.size() % 2 != 0) {
    fail(where, "odd number of hex digits");
  }
  std::vector<std::uint8_t> bytes;
  for (std::size_t i = 0; i < digits.size(); i += 2) {
    bytes.push_back(static_cast<std::uint8_t>(std::stoul(digits.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

}  // namespace

std::vector<GoldenVector> load_golden_vectors(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    fail(path, "cannot open");
  }
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    fail(path, e.what());
  }
  if (!doc.contains("vectors") || !doc["vectors"].is_array()) {
    fail(path, "no \"vectors\" list");
  }
  std::vector<GoldenVector> out;
  std::set<std::string> seen;
  for (const auto& v : doc["vectors"]) {
    GoldenVector g;
    if (!v.contains("name") || !v["name"].is_string()) {
      fail(path, "a vector has no name");
    }
    g.name = v["name"].get<std::string>();
    const std::string where = path + " vector " + g.name;
    if (!seen.insert(g.name).second) {
      fail(where, "duplicate name");
    }
    for (const char* key : {"format", "hex", "fields"}) {
      if (!v.contains(key)) {
        fail(where, std::string("missing \"") + key + "\"");
      }
    }
    g.format = v["format"].get<std::string>();
    g.bytes = parse_hex(v["hex"], where);
    flatten(v["fields"], "", where, g.fields);
    if (v.contains("names")) {
      for (const auto& [key, name] : v["names"].items()) {
        g.names[key] = name.get<std::string>();
      }
    }
    g.reencode = v.value("reencode", true);
    out.push_back(std::move(g));
  }
  return out;
}

const std::vector<GoldenVector>& golden_vectors() {
  static const std::vector<GoldenVector> vectors = load_golden_vectors(SYNCFAB_FMT_VECTORS_JSON);
  return vectors;
}

const GoldenVector& golden_vector(std::string_view name) {
  for (const auto& v : golden_vectors()) {
    if (v.name == name) {
      return v;
    }
  }
  throw std::out_of_range("golden vectors: no vector named " + std::string(name));
}

std::vector<std::string> diff_fields(const FieldValues& expected, const FieldValues& actual) {
  std::vector<std::string> out;
  const auto hex = [](std::uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << std::uppercase << v;
    return s.str();
  };
  for (const auto& [path, want] : expected) {
    const auto it = actual.find(path);
    if (it == actual.end()) {
      out.push_back(path + ": expected " + hex(want) + ", not decoded by the test");
    } else if (it->second != want) {
      out.push_back(path + ": expected " + hex(want) + ", got " + hex(it->second));
    }
  }
  for (const auto& [path, got] : actual) {
    if (expected.count(path) == 0) {
      out.push_back(path + ": decoded " + hex(got) + ", but the vector does not list it");
    }
  }
  return out;
}

std::vector<std::string> diff_names(const EnumNames& expected, const EnumNames& actual) {
  std::vector<std::string> out;
  for (const auto& [field, want] : expected) {
    const auto it = actual.find(field);
    if (it == actual.end()) {
      out.push_back(cat(field, R"(: expected name ")", want, R"(", not decoded by the test)"));
    } else if (it->second != want) {
      out.push_back(cat(field, R"(: expected name ")", want, R"(", got ")", it->second, "\""));
    }
  }
  for (const auto& [field, got] : actual) {
    if (expected.count(field) == 0) {
      out.push_back(
          cat(field, R"(: decoded name ")", got, R"(", but the vector does not list it)"));
    }
  }
  return out;
}

std::string test_name(const std::string& vector_name) {
  std::string out;
  for (const char c : vector_name) {
    out.push_back(std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_');
  }
  return out;
}

}  // namespace syncfab::fmt::test
