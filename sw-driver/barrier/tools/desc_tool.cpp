// syncfab-desc: decode and validate a barrier descriptor, a completion-queue
// entry or a packet header from hex (as a driver developer copies it from a
// memory dump, a CSR dump or a waveform), or encode the descriptor the
// driver would build for one rank. Exit status: 0 valid, 1 the image breaks
// a rule (each printed), 2 the input itself is unusable.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "syncfab/driver/barrier_desc.hpp"
#include "syncfab/driver/barrier_schedule.hpp"
#include "syncfab/driver/desc_inspect.hpp"

namespace {

using namespace syncfab::driver;
namespace hw = syncfab::hw;

std::string read_all(std::istream& in) {
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int print_report(const ImageReport& rep, bool json) {
  if (json) {
    nlohmann::ordered_json j;
    j["valid"] = rep.errors.empty();
    j["errors"] = rep.errors;
    auto& fields = j["fields"] = nlohmann::ordered_json::array();
    for (const ImageField& f : rep.fields) {
      nlohmann::ordered_json o{{"name", f.name}, {"value", f.value}};
      if (!f.note.empty()) {
        o["note"] = f.note;
      }
      fields.push_back(std::move(o));
    }
    std::cout << j.dump(2) << "\n";
  } else {
    for (const ImageField& f : rep.fields) {
      std::printf(
          "%-24s %#-20llx %llu%s%s\n", f.name.c_str(), static_cast<unsigned long long>(f.value),
          static_cast<unsigned long long>(f.value), f.note.empty() ? "" : "  ", f.note.c_str());
    }
    if (rep.errors.empty()) {
      std::printf("valid\n");
    }
    for (const std::string& e : rep.errors) {
      std::printf("INVALID: %s\n", e.c_str());
    }
  }
  return rep.errors.empty() ? 0 : 1;
}

int run(int argc, char** argv) {
  CLI::App app{"syncfab-desc: decode, validate and encode the NIC's descriptor formats"};
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  syncfab-desc encode --size 8 --rank 3 --fanout 2 --epoch 5 > d.hex\n"
      "  syncfab-desc decode desc --file d.hex\n"
      "  syncfab-desc decode cq 03 01 04 00 05 00 00 00 01 00 00 00 00 00 00 00\n"
      "  syncfab-desc decode desc --words --k-max 2 --file hdq_window_dump.txt\n"
      "Exit status: 0 valid, 1 the image breaks a rule (printed), 2 unusable input.");

  std::string kind_s;
  std::vector<std::string> hex;
  std::string file;
  bool words = false;
  bool json = false;
  DescLimits limits;
  auto* dec = app.add_subcommand("decode", "print every field of an image and validate it");
  dec->add_option("kind", kind_s,
                  "desc (barrier descriptor, 352 B), cq (completion entry, 16 B) "
                  "or pkt (packet header, 16 B)")
      ->required()
      ->check(CLI::IsMember({"desc", "cq", "pkt"}));
  dec->add_option("hex", hex,
                  "the image as hex (bytes in memory order unless --words); "
                  "read from --file or standard input when absent");
  dec->add_option("--file", file, "read the hex text from this file ('-' = standard input)");
  dec->add_flag("--words", words,
                "hex is 32-bit words as a CSR window dump shows them "
                "(each little-endian in memory)");
  dec->add_flag("--json", json, "print the fields and the verdict as JSON");
  dec->add_option("--num-ctx", limits.num_ctx, "device contexts (CAPS.NUM_CTX): check ctx");
  dec->add_option("--k-max", limits.k_max, "device K_MAX (CAPS.K_MAX); default the format's");
  dec->add_option("--max-rounds", limits.max_rounds,
                  "device MAX_ROUNDS (CAPS.MAX_ROUNDS); default the format's");

  std::uint32_t size = 0, rank = 0;
  unsigned fanout = 2;
  std::uint16_t lid_base = 1, epoch = 0;
  unsigned ctx = 0;
  bool no_cq = false, irq = false;
  hw::BusAddr write_addr = 0;
  std::uint64_t write_value = 1;
  auto* enc = app.add_subcommand(
      "encode",
      "print the descriptor the driver builds for one rank (rank r has LID lid-base + r)");
  enc->add_option("--size", size, "number of ranks p (>= 1)")->required();
  enc->add_option("--rank", rank, "this rank, 0 .. p-1")->required();
  enc->add_option("--fanout", fanout, "k: 1 classic dissemination, 2 the paper's, up to K_MAX")
      ->capture_default_str();
  enc->add_option("--lid-base", lid_base, "LID of rank 0")->capture_default_str();
  enc->add_option("--ctx", ctx, "barrier context")
      ->capture_default_str()
      ->check(CLI::Range(0, 255));
  enc->add_option("--epoch", epoch, "epoch")->capture_default_str();
  enc->add_flag("--no-cq", no_cq, "no completion-queue entry");
  enc->add_flag("--irq", irq, "raise INTR_STATUS.DONE on completion");
  enc->add_option("--write-addr", write_addr, "completion write address (8-byte aligned)");
  enc->add_option("--write-value", write_value, "completion write value")->capture_default_str();
  enc->add_flag("--words", words, "print 32-bit words (HDQ window order) instead of bytes");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help exits 0; a bad command line is bad input, with this tool's code
    // for it (not CLI11's 105-style codes).
    return app.exit(e) == 0 ? 0 : 2;
  }

  if (*enc) {
    try {
      const BarrierSchedule s = build_barrier_schedule(rank, size, fanout);
      std::vector<std::uint16_t> lids(size);
      for (std::uint32_t r = 0; r < size; ++r) {
        const std::uint32_t lid = lid_base + r;
        if (lid >= syncfab::fmt::kMlidBase) {
          throw std::invalid_argument("--lid-base " + std::to_string(lid_base) + " with --size " +
                                      std::to_string(size) + " reaches the multicast LID range");
        }
        lids[r] = static_cast<std::uint16_t>(lid);
      }
      BarrierCompletion c;
      c.cq_entry = !no_cq;
      c.irq = irq;
      c.write = write_addr != 0;
      c.addr = write_addr;
      c.value = c.write ? write_value : 0;
      const auto desc = encode_barrier_desc(s, lids, static_cast<std::uint8_t>(ctx), epoch, c);
      const std::vector<std::uint8_t> bytes(desc.bytes().begin(), desc.bytes().end());
      std::cout << format_hex_image(bytes, words ? HexLayout::kWords : HexLayout::kBytes) << "\n";
      return 0;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "syncfab-desc encode: %s\n", e.what());
      return 2;
    }
  }

  const ImageKind kind = kind_s == "desc" ? ImageKind::kDesc
                         : kind_s == "cq" ? ImageKind::kCq
                                          : ImageKind::kPkt;
  std::string text;
  if (!hex.empty()) {
    if (!file.empty()) {
      std::fprintf(stderr,
                   "syncfab-desc decode: give the hex either as arguments or with --file\n");
      return 2;
    }
    text = std::accumulate(hex.begin(), hex.end(), std::string(),
                           [](const std::string& a, const std::string& b) { return a + " " + b; });
  } else if (file.empty() || file == "-") {
    text = read_all(std::cin);
  } else {
    std::ifstream in(file);
    if (!in) {
      std::fprintf(stderr, "syncfab-desc decode: cannot read %s\n", file.c_str());
      return 2;
    }
    text = read_all(in);
  }
  std::vector<std::uint8_t> image;
  try {
    image = parse_hex_image(text, kind, words ? HexLayout::kWords : HexLayout::kBytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "syncfab-desc decode: %s%s%s\n", file.empty() ? "" : file.c_str(),
                 file.empty() ? "" : ": ", e.what());
    return 2;
  }
  return print_report(inspect_image(kind, image, limits), json);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "syncfab-desc: %s\n", e.what());
  }
  return 2;
}
