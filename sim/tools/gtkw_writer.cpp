#include "gtkw_writer.hpp"

#include <gtkwave/fstapi.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace syncfab::tb::system {

namespace {

// A name without the bit range GTKWave appends to a vector ("free_q[8:0]"):
// the checked-in save files were written for one shape of each top, and a
// vector's width follows the shape's parameters.
std::string without_range(const std::string& name) {
  static const std::regex kRange(R"(\[[0-9]+:[0-9]+\]$)");
  return std::regex_replace(name, kRange, "");
}

// Every signal in the FST as GTKWave names it (scopes and name joined by
// dots, a vector's range attached), by its name without the range.
std::map<std::string, std::string> fst_signals(const std::filesystem::path& fst) {
  const std::unique_ptr<void, void (*)(void*)> ctx(fstReaderOpen(fst.string().c_str()),
                                                   fstReaderClose);
  if (!ctx) {
    throw std::runtime_error("cannot read the FST " + fst.string());
  }
  std::map<std::string, std::string> sigs;
  std::vector<std::string> scope;
  while (const fstHier* h = fstReaderIterateHier(ctx.get())) {
    if (h->htyp == FST_HT_SCOPE) {
      scope.emplace_back(h->u.scope.name);
    } else if (h->htyp == FST_HT_UPSCOPE && !scope.empty()) {
      scope.pop_back();
    } else if (h->htyp == FST_HT_VAR) {
      std::string name;
      for (const std::string& sc : scope) {
        name += sc;
        name += '.';
      }
      std::string var(h->u.var.name);
      var.erase(std::remove(var.begin(), var.end(), ' '), var.end());
      name += var;
      sigs.emplace(without_range(name), name);
    }
  }
  return sigs;
}

// The signal lines and group markers of a save file, "dut." replaced by the
// instance and each signal named as the FST names it; a signal the FST
// lacks is left out and counted. Header lines ([...] settings, [*]
// comments) dropped.
std::string body(const std::filesystem::path& file, const std::string& inst,
                 const std::map<std::string, std::string>& sigs, std::size_t& missing) {
  std::ifstream in(file);
  if (!in) {
    throw std::runtime_error("cannot read GTKWave save file " + file.string());
  }
  std::ostringstream out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line.front() == '[') {
      continue;
    }
    if (line.front() == '@' || line.front() == '-') {
      out << line << '\n';
      continue;
    }
    std::string name = line.rfind("dut.", 0) == 0 ? inst + line.substr(3) : line;
    const auto it = sigs.find(without_range(name));
    if (it == sigs.end()) {
      ++missing;
      continue;
    }
    out << it->second << '\n';
  }
  return out.str();
}

}  // namespace

std::size_t write_gtkw(const std::filesystem::path& out, const std::filesystem::path& fst,
                       const WaveView& view, const std::filesystem::path& dir) {
  const std::map<std::string, std::string> sigs = fst_signals(fst);
  std::size_t missing = 0;
  std::vector<std::pair<std::string, std::filesystem::path>> parts{
      {view.nic, dir / "nic_top.gtkw"}, {view.leaf, dir / "switch_top.gtkw"}};
  if (!view.spine.empty()) {
    parts.emplace_back(view.spine, dir / "switch_top.gtkw");
  }
  std::ostringstream s;
  s << "[*] The system fabric's FST on " << view.nic << ", its leaf " << view.leaf;
  if (!view.spine.empty()) {
    s << " and " << view.spine;
  }
  s << "\n[*] Open with: gtkwave " << fst.string() << ' ' << out.string() << "\n"
    << "[dumpfile] \"" << fst.string() << "\"\n"
    << "[timestart] 0\n[size] 1600 1000\n[pos] -1 -1\n[sst_width] 260\n[signals_width] 320\n"
       "[sst_expanded] 1\n[sst_vpaned_height] 300\n";
  for (const auto& [inst, file] : parts) {
    s << "@800200\n-" << inst << '\n'
      << body(file, inst, sigs, missing) << "@1000200\n-" << inst << '\n';
  }
  std::ofstream f(out);
  f << s.str();
  if (!f) {
    throw std::runtime_error("cannot write GTKWave save file " + out.string());
  }
  return missing;
}

}  // namespace syncfab::tb::system
