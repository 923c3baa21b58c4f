#include "gtkw_writer.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace syncfab::tb::system {

namespace {

// The signal lines and group markers of a save file, "dut." replaced by the
// instance; its header lines ([...] settings, [*] comments) dropped.
std::string body(const std::filesystem::path& file, const std::string& inst) {
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
    if (line.rfind("dut.", 0) == 0) {
      out << inst << std::string_view(line).substr(3) << '\n';
    } else {
      out << line << '\n';
    }
  }
  return out.str();
}

}  // namespace

void write_gtkw(const std::filesystem::path& out, const std::filesystem::path& fst,
                const WaveView& view, const std::filesystem::path& dir) {
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
    s << "@800200\n-" << inst << '\n' << body(file, inst) << "@1000200\n-" << inst << '\n';
  }
  std::ofstream f(out);
  f << s.str();
  if (!f) {
    throw std::runtime_error("cannot write GTKWave save file " + out.string());
  }
}

}  // namespace syncfab::tb::system
