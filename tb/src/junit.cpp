#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "syncfab/tb/runner.hpp"

namespace syncfab::tb {

namespace {
std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string seconds(double s) {
  std::ostringstream os;
  os.precision(3);
  os << std::fixed << s;
  return os.str();
}
}  // namespace

void write_junit(const std::filesystem::path& file, const std::string& binary,
                 const std::vector<TestResult>& results) {
  std::map<std::string, std::vector<const TestResult*>> suites;
  std::size_t failures = 0;
  double total = 0;
  for (const auto& r : results) {
    suites[r.suite].push_back(&r);
    failures += r.passed ? 0 : 1;
    total += r.seconds;
  }
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path());
  }
  std::ofstream os(file);
  if (!os) {
    throw std::runtime_error("cannot write JUnit file " + file.string());
  }
  os << R"(<?xml version="1.0" encoding="UTF-8"?>)"
     << "\n";
  os << "<testsuites name=\"" << xml_escape(binary) << "\" tests=\"" << results.size()
     << "\" failures=\"" << failures << R"(" errors="0" time=")" << seconds(total) << "\">\n";
  for (const auto& [suite, rs] : suites) {
    std::size_t f = 0;
    double t = 0;
    for (const auto* r : rs) {
      f += r->passed ? 0 : 1;
      t += r->seconds;
    }
    os << "  <testsuite name=\"" << xml_escape(suite) << "\" tests=\"" << rs.size()
       << "\" failures=\"" << f << R"(" errors="0" skipped="0" time=")" << seconds(t) << "\">\n";
    for (const auto* r : rs) {
      os << "    <testcase classname=\"" << xml_escape(suite) << "\" name=\""
         << xml_escape(r->name + " seed=" + std::to_string(r->seed)) << "\" time=\""
         << seconds(r->seconds) << "\"";
      if (r->passed) {
        os << "/>\n";
        continue;
      }
      const auto first_line = r->message.substr(0, r->message.find('\n'));
      os << ">\n      <failure type=\"" << xml_escape(r->kind) << "\" message=\""
         << xml_escape(first_line) << "\">" << xml_escape(r->message) << "</failure>\n"
         << "    </testcase>\n";
    }
    os << "  </testsuite>\n";
  }
  os << "</testsuites>\n";
  if (!os) {
    throw std::runtime_error("error writing JUnit file " + file.string());
  }
}

}  // namespace syncfab::tb
