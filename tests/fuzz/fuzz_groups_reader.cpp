// The groups reader (groups.txt) against a small fixed fabric whose node
// names include the awkward kinds (a space, a '#', a quote, one that looks
// like an MLID, one that looks like a GUID, descriptions two nodes share):
// any input either parses or throws InputError. Groups that parse, written
// back and re-read, are the same groups (MLIDs and members), and writing
// them again gives the same text.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_check.hpp"
#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/groups.hpp"

namespace {

using syncfab::fuzz::check;
using syncfab::sm::Fabric;
using syncfab::sm::GroupSet;
using syncfab::sm::NodeType;

Fabric make_fabric() {
  Fabric f;
  const auto sw = f.add_node(NodeType::kSwitch, "sw0", 12, 0x200000);
  const char* ids[] = {"h1", "h2", "0xc001", "H-0008f10403961354", "n3", "n4", "n5", "n6"};
  const char* descs[] = {"",         "node018 HCA-1", "",        "a#b",
                         "quote\"d", "MT23108",       "MT23108", "0x100004"};
  std::uint64_t guid = 0x100000;
  for (int i = 0; i < 8; ++i) {
    const auto h = f.add_node(NodeType::kHca, ids[i], 1, guid, descs[i]);
    guid += 2;
    f.connect(h, 1, sw, static_cast<syncfab::sm::PortNum>(i + 1));
  }
  f.assign_lids();
  return f;
}

const Fabric& fabric() {
  static const Fabric f = make_fabric();
  return f;
}

std::string written(const GroupSet& g) {
  std::ostringstream out;
  syncfab::sm::write_groups(out, fabric(), g);
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  GroupSet first;
  try {
    first = syncfab::sm::read_groups(in, "fuzz.groups", fabric());
  } catch (const syncfab::sm::InputError&) {
    return 0;
  }
  const std::string text = written(first);
  std::istringstream again(text);
  GroupSet second;
  try {
    second = syncfab::sm::read_groups(again, "written.groups", fabric());
  } catch (const syncfab::sm::InputError& e) {
    syncfab::fuzz::finding(std::string("the writer's output does not read back: ") + e.what() +
                           "\n" + text);
  }
  check(first.groups.size() == second.groups.size(), "round trip changed the group count");
  for (std::size_t i = 0; i < first.groups.size(); ++i) {
    check(first.groups[i].mlid == second.groups[i].mlid,
          "group " + std::to_string(i) + ": MLID changed");
    check(first.groups[i].members == second.groups[i].members,
          "group " + std::to_string(i) + ": members changed");
  }
  check(written(second) == text, "writing the re-read groups gives other text");
  return 0;
}
