#include <algorithm>
#include <charconv>
#include <numeric>
#include <random>
#include <string>

#include "syncfab/sm/errors.hpp"
#include "syncfab/sm/groups.hpp"

namespace syncfab::sm {

namespace {

class Builder {
 public:
  Builder(const Fabric& f, const PatternSpec& s) : fabric_(f) {
    if (s.processes_per_node < 1) {
      throw FabricError("processes per node must be at least 1");
    }
    if (f.hca_count() == 0) {
      throw FabricError("the fabric has no end nodes");
    }
    const std::size_t procs = f.hca_count() * static_cast<std::size_t>(s.processes_per_node);
    // process slot k lives on end node k / ppn; rank r takes slot slot_[r].
    slot_.resize(procs);
    std::iota(slot_.begin(), slot_.end(), 0u);
    if (s.placement == Placement::kUnaware) {
      std::mt19937_64 rng(s.seed);
      std::shuffle(slot_.begin(), slot_.end(), rng);
    }
    ppn_ = static_cast<std::size_t>(s.processes_per_node);
  }

  [[nodiscard]] std::size_t processes() const { return slot_.size(); }

  void add(const std::vector<std::size_t>& ranks) {
    Group g;
    for (std::size_t r : ranks) {
      g.members.push_back(fabric_.hcas()[slot_[r] / ppn_]);
    }
    std::sort(g.members.begin(), g.members.end());
    g.members.erase(std::unique(g.members.begin(), g.members.end()), g.members.end());
    if (g.members.size() < 2) {
      ++out_.single_node_groups;
      return;
    }
    if (out_.groups.size() >= kMulticastLidCount) {
      throw FabricError("more groups than the multicast LID space (" +
                        std::to_string(kMulticastLidCount) + " MLIDs, " + hex_lid(fmt::kMlidBase) +
                        ".." + hex_lid(kLastMulticastLid) + ")");
    }
    g.mlid = static_cast<Lid>(fmt::kMlidBase + out_.groups.size());
    out_.groups.push_back(std::move(g));
  }

  GroupSet take() { return std::move(out_); }

 private:
  const Fabric& fabric_;
  std::vector<std::uint32_t> slot_;
  std::size_t ppn_ = 1;
  GroupSet out_;
};

void need_ranks(std::size_t needed, std::size_t have, const std::string& what) {
  if (needed > have) {
    throw FabricError(what + " needs " + std::to_string(needed) + " processes but the fabric has " +
                      std::to_string(have));
  }
}

}  // namespace

GroupSet make_groups(const Fabric& fabric, const PatternSpec& s) {
  Builder b(fabric, s);
  using Kind = PatternSpec::Kind;
  if (s.kind == Kind::kGrid2D || s.kind == Kind::kGrid3D) {
    const int nd = s.kind == Kind::kGrid2D ? 2 : 3;
    std::size_t total = 1;
    std::size_t dim[3] = {1, 1, 1};
    for (int d = 0; d < nd; ++d) {
      if (s.dims[d] < 1) {
        throw FabricError("grid dimensions must be at least 1");
      }
      dim[d] = static_cast<std::size_t>(s.dims[d]);
      // Checked before multiplying: a product past the fabric's processes
      // must not wrap into a small one.
      if (dim[d] > b.processes() / total) {
        std::string shape;
        for (int e = 0; e < nd; ++e) {
          shape += (e == 0 ? "" : "x") + std::to_string(s.dims[e]);
        }
        throw FabricError("the grid " + shape + " needs more processes than the fabric's " +
                          std::to_string(b.processes()));
      }
      total *= dim[d];
    }
    need_ranks(total, b.processes(), "the grid");
    // Row-major ranks as MPI_Cart_create numbers them (last dimension
    // fastest); every line along a dimension is a group, rows (the last
    // dimension's lines, consecutive ranks) first.
    std::size_t stride[3] = {1, 1, 1};
    for (int d = nd - 2; d >= 0; --d) {
      stride[d] = stride[d + 1] * dim[d + 1];
    }
    for (int d = nd - 1; d >= 0; --d) {
      for (std::size_t base = 0; base < total; ++base) {
        if (base / stride[d] % dim[d] != 0) {
          continue;  // first rank of each line only
        }
        std::vector<std::size_t> ranks;
        for (std::size_t k = 0; k < dim[d]; ++k) {
          ranks.push_back(base + k * stride[d]);
        }
        b.add(ranks);
      }
    }
  } else {
    if (s.count < 1 || s.size < 2) {
      throw FabricError("random groups need count >= 1, size >= 2");
    }
    need_ranks(static_cast<std::size_t>(s.size), b.processes(), "a random group");
    std::mt19937_64 rng(s.seed ^ 0x9e3779b97f4a7c15ull);
    std::vector<std::size_t> all(b.processes());
    std::iota(all.begin(), all.end(), 0u);
    for (int g = 0; g < s.count; ++g) {
      // Partial Fisher-Yates: `size` distinct ranks.
      for (int k = 0; k < s.size; ++k) {
        std::uniform_int_distribution<std::size_t> pick(static_cast<std::size_t>(k),
                                                        all.size() - 1);
        std::swap(all[static_cast<std::size_t>(k)], all[pick(rng)]);
      }
      b.add({all.begin(), all.begin() + s.size});
    }
  }
  return b.take();
}

PatternSpec parse_pattern(std::string_view text) {
  PatternSpec s;
  const auto colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  const std::string_view args = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  auto to_int = [&](std::string_view v) {
    int x = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
    if (ec != std::errc{} || p != v.data() + v.size() || x < 1) {
      throw FabricError("pattern \"" + printable(text) + "\": \"" + printable(v) +
                        "\" is not a positive integer");
    }
    return x;
  };
  if (kind == "grid2d" || kind == "grid3d") {
    s.kind = kind == "grid2d" ? PatternSpec::Kind::kGrid2D : PatternSpec::Kind::kGrid3D;
    const int nd = kind == "grid2d" ? 2 : 3;
    std::string_view rest = args;
    for (int d = 0; d < nd; ++d) {
      const auto x = rest.find('x');
      if ((d < nd - 1) == (x == std::string_view::npos)) {
        throw FabricError("pattern \"" + printable(text) + "\": expected " +
                          (nd == 2 ? "ROWSxCOLS" : "XxYxZ"));
      }
      s.dims[d] = to_int(rest.substr(0, x));
      rest = x == std::string_view::npos ? "" : rest.substr(x + 1);
    }
    return s;
  }
  if (kind == "random") {
    s.kind = PatternSpec::Kind::kRandom;
    std::string_view rest = args;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
      const auto eq = item.find('=');
      const std::string_view key = item.substr(0, eq);
      if (eq == std::string_view::npos || (key != "count" && key != "size")) {
        throw FabricError("pattern \"" + printable(text) + "\": expected count=N,size=M");
      }
      (key == "count" ? s.count : s.size) = to_int(item.substr(eq + 1));
    }
    if (s.count == 0 || s.size == 0) {
      throw FabricError("pattern \"" + printable(text) + "\": needs count= and size=");
    }
    return s;
  }
  throw FabricError("unknown group pattern \"" + std::string(kind) +
                    "\" (known: grid2d:RxC, grid3d:XxYxZ, random:count=N,size=M)");
}

}  // namespace syncfab::sm
