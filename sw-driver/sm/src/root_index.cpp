#include "syncfab/sm/root_index.hpp"

#include <algorithm>
#include <unordered_map>

namespace syncfab::sm {

namespace {

// FNV-1a over a switch's distances to the terminal switches.
std::uint64_t row_hash(std::span<const std::uint8_t> row, std::span<const SwitchIdx> terminals) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (SwitchIdx t : terminals) {
    h = (h ^ row[t]) * 0x100000001b3ull;
  }
  return h;
}

}  // namespace

RootIndex::RootIndex(const MinHop& mh, int landmarks, bool allow_scan)
    : mh_(mh), allow_scan_(allow_scan) {
  const Fabric& f = mh.fabric();
  const std::size_t n = mh.switch_count();
  terminal_.assign(n, 0);
  for (NodeId h : f.hcas()) {
    const SwitchIdx s = f.attach_switch(h);
    if (s != kNoSwitch) {
      terminal_[s] = 1;
    }
  }
  std::vector<SwitchIdx> terminals;
  for (SwitchIdx s = 0; s < n; ++s) {
    if (terminal_[s] != 0) {
      terminals.push_back(s);
    }
  }

  // Twin classes: equal distance to every terminal switch, checked exactly
  // (the hash only narrows the comparison).
  std::vector<std::uint32_t> class_of(n);
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_hash;
  std::vector<std::vector<SwitchIdx>> classes;
  for (SwitchIdx s = 0; s < n; ++s) {
    const auto row = mh.row(s);
    std::vector<std::uint32_t>& same = by_hash[row_hash(row, terminals)];
    auto c = static_cast<std::uint32_t>(classes.size());
    for (std::uint32_t k : same) {
      const auto other = mh.row(reps_[k]);
      if (std::all_of(terminals.begin(), terminals.end(),
                      [&](SwitchIdx t) { return row[t] == other[t]; })) {
        c = k;
        break;
      }
    }
    if (c == classes.size()) {
      same.push_back(c);
      classes.emplace_back();
      reps_.push_back(s);
    }
    classes[c].push_back(s);
    class_of[s] = c;
  }
  // A class whose farthest terminal switch is within h is within h of any
  // terminal member set: accepted without looking at the members.
  rep_reach_.resize(reps_.size());
  for (std::size_t c = 0; c < reps_.size(); ++c) {
    const auto row = mh.row(reps_[c]);
    std::uint8_t far = 0;
    for (SwitchIdx t : terminals) {
      far = std::max(far, row[t]);
    }
    rep_reach_[c] = far;
  }
  class_off_.assign(1, 0);
  for (const auto& members : classes) {
    class_sw_.insert(class_sw_.end(), members.begin(), members.end());
    class_off_.push_back(static_cast<std::uint32_t>(class_sw_.size()));
  }

  // Landmarks: terminal switches, farthest first (the periphery bounds best).
  if (!terminals.empty() && landmarks > 0) {
    std::vector<std::uint8_t> near(terminals.size(), kUnreachable);
    SwitchIdx next = terminals.front();
    {
      const auto row = mh.row(next);
      for (SwitchIdx t : terminals) {
        if (row[t] != kUnreachable && row[t] > row[next]) {
          next = t;
        }
      }
    }
    while (landmarks_.size() < static_cast<std::size_t>(landmarks)) {
      landmarks_.push_back(next);
      const auto row = mh.row(next);
      std::size_t best = 0;
      for (std::size_t i = 0; i < terminals.size(); ++i) {
        near[i] = std::min(near[i], row[terminals[i]]);
        if (near[i] > near[best]) {
          best = i;
        }
      }
      if (near[best] == 0) {
        break;  // every terminal switch is a landmark already
      }
      next = terminals[best];
    }
  }

  const std::size_t k = landmarks_.size();
  const std::size_t classes_n = reps_.size();
  rep_dist_.resize(classes_n * k);
  by_dist_.resize(k * classes_n);
  bucket_off_.assign(k * kBuckets, 0);
  for (std::size_t l = 0; l < k; ++l) {
    const auto row = mh.row(landmarks_[l]);
    std::uint32_t* off = bucket_off_.data() + l * kBuckets;
    for (std::size_t c = 0; c < classes_n; ++c) {
      const std::uint8_t d = row[reps_[c]];
      rep_dist_[c * k + l] = d;
      ++off[d + 1];
    }
    for (int d = 1; d < kBuckets; ++d) {
      off[d] += off[d - 1];
    }
    std::vector<std::uint32_t> fill(off, off + kBuckets);
    for (std::size_t c = 0; c < classes_n; ++c) {
      by_dist_[l * classes_n + fill[rep_dist_[c * k + l]]++] = static_cast<std::uint32_t>(c);
    }
  }
}

std::size_t RootIndex::memory_bytes() const {
  return terminal_.size() + reps_.size() * sizeof(SwitchIdx) +
         class_off_.size() * sizeof(std::uint32_t) + class_sw_.size() * sizeof(SwitchIdx) +
         landmarks_.size() * sizeof(SwitchIdx) + by_dist_.size() * sizeof(std::uint32_t) +
         bucket_off_.size() * sizeof(std::uint32_t) + rep_dist_.size() + rep_reach_.size();
}

RootChoice RootIndex::roots(std::span<const SwitchIdx> members) const {
  const std::size_t k = landmarks_.size();
  if (members.empty() || k == 0 ||
      std::any_of(members.begin(), members.end(), [&](SwitchIdx m) { return terminal_[m] == 0; })) {
    // Twins are only twins towards terminal switches: the full scan answers.
    return minimal_height_roots(mh_, members);
  }
  // The member pair farthest apart (double sweep) bounds the height from
  // below and is the likeliest to reject a wrong candidate.
  auto farthest = [&](SwitchIdx from) {
    const auto row = mh_.row(from);
    SwitchIdx best = members.front();
    for (SwitchIdx m : members) {
      if (row[m] > row[best]) {
        best = m;
      }
    }
    return best;
  };
  const SwitchIdx b = farthest(members.front());
  const SwitchIdx c = farthest(b);
  const int span = mh_.distance(b, c);
  if (span == kUnreachable) {
    return RootChoice{kUnreachable, {}};  // every switch misses b or c
  }
  thread_local std::vector<int> lo, hi;
  lo.assign(k, kUnreachable);
  hi.assign(k, 0);
  int lb = (span + 1) / 2;
  for (std::size_t l = 0; l < k; ++l) {
    const auto row = mh_.row(landmarks_[l]);
    for (SwitchIdx m : members) {
      lo[l] = std::min<int>(lo[l], row[m]);
      hi[l] = std::max<int>(hi[l], row[m]);
    }
    lb = std::max(lb, (hi[l] - lo[l] + 1) / 2);
  }

  // The planner below, decided early: windows only widen with h, so if the
  // narrowest one at h = lb (<= ub) already holds half the classes, the
  // planner would pick the scan at h = ub too. Skipping the local search
  // saves ~20% on the torus, where scattered members make this the usual case.
  if (allow_scan_ && reps_.size() == mh_.switch_count()) {
    auto narrowest = static_cast<std::uint32_t>(reps_.size());
    for (std::size_t l = 0; l < k; ++l) {
      const std::uint32_t* off = bucket_off_.data() + l * kBuckets;
      const int from = std::max(0, hi[l] - lb);
      const int to = std::min<int>(kUnreachable, lo[l] + lb);
      narrowest = std::min(narrowest, off[to + 1] - off[from]);
    }
    if (static_cast<std::size_t>(narrowest) * 2 > reps_.size()) {
      return minimal_height_roots(mh_, members);
    }
  }

  // Members in farthest-first order for the first few (each cuts the
  // candidates from another side), then in index order.
  constexpr std::size_t kSpread = 8;
  thread_local std::vector<SwitchIdx> order;
  thread_local std::vector<std::uint8_t> near;
  order.assign(members.begin(), members.end());
  near.assign(order.size(), kUnreachable);
  std::size_t placed = 0;
  for (SwitchIdx pick = b; placed < std::min(kSpread, order.size());) {
    const auto row = mh_.row(pick);
    std::size_t far = placed;
    for (std::size_t i = placed; i < order.size(); ++i) {
      if (order[i] == pick) {
        std::swap(order[i], order[placed]);
        std::swap(near[i], near[placed]);
      }
    }
    ++placed;
    for (std::size_t i = placed; i < order.size(); ++i) {
      near[i] = std::min(near[i], row[order[i]]);
      if (far < placed || near[i] > near[far]) {
        far = i;
      }
    }
    if (far < placed || near[far] == 0) {
      break;
    }
    pick = order[far];
  }

  // Upper bound: a local search on the eccentricity from the b-c midpoint
  // (each step moves to a switch neighbour with a smaller one).
  auto ecc_below = [&](SwitchIdx x, int limit) {  // ecc(x), or limit+1 if above
    const auto row = mh_.row(x);
    int e = 0;
    for (SwitchIdx m : order) {
      e = std::max<int>(e, row[m]);
      if (e > limit) {
        return limit + 1;
      }
    }
    return e;
  };
  const Fabric& f = mh_.fabric();
  auto each_neighbour = [&](SwitchIdx x, auto&& fn) {
    const NodeId node = f.switch_node(x);
    for (int pi = 1; pi <= f.num_ports(node); ++pi) {
      const PortPeer o = f.peer(node, static_cast<PortNum>(pi));
      if (o.connected() && f.is_switch(o.node) && fn(f.switch_index(o.node))) {
        return;
      }
    }
  };
  SwitchIdx x = b;
  for (int step = 0; step < span / 2; ++step) {
    const auto to_c = mh_.row(c);
    each_neighbour(x, [&](SwitchIdx y) {
      if (to_c[y] < to_c[x]) {
        x = y;
        return true;
      }
      return false;
    });
  }
  int ub = ecc_below(x, kUnreachable);
  for (bool moved = true; moved && ub > lb;) {
    moved = false;
    each_neighbour(x, [&](SwitchIdx y) {
      const int e = ecc_below(y, ub - 1);
      if (e < ub) {
        x = y;
        ub = e;
        moved = true;
      }
      return moved;
    });
  }

  // pass(h, floor): every class with ecc <= h, with its exact ecc, found by
  // the landmark windows and then the members. `floor` = no class has ecc
  // below h (known from a failed pass at h-1 or from the lower bound): then
  // a class whose farthest terminal switch is within h has ecc == h and needs
  // no member check.
  const std::size_t classes_n = reps_.size();
  thread_local std::vector<std::size_t> useful;
  thread_local std::vector<std::uint32_t> alive;
  thread_local std::vector<std::uint8_t> ecc;
  auto pass = [&](int h, bool floor) {
    std::size_t pick = 0;
    std::uint32_t pick_from = 0, pick_to = 0;
    useful.clear();
    for (std::size_t l = 0; l < k; ++l) {
      const std::uint32_t* off = bucket_off_.data() + l * kBuckets;
      const int from = std::max(0, hi[l] - h);
      const int to = std::min<int>(kUnreachable, lo[l] + h);
      const std::uint32_t a = off[from], z = off[to + 1];
      if (z - a < off[kBuckets - 1]) {
        useful.push_back(l);  // this window excludes some class
      }
      if (l == 0 || z - a < pick_to - pick_from) {
        pick = l;
        pick_from = a;
        pick_to = z;
      }
    }
    alive.clear();
    ecc.clear();
    std::size_t sure = 0;  // alive[0, sure) need no member check
    auto consider = [&](std::uint32_t cls) {
      const std::uint8_t* rd = rep_dist_.data() + static_cast<std::size_t>(cls) * k;
      for (std::size_t l : useful) {
        if (rd[l] + h < hi[l] || rd[l] > lo[l] + h) {
          return;
        }
      }
      alive.push_back(cls);
      ecc.push_back(static_cast<std::uint8_t>(h));
      if (floor && rep_reach_[cls] <= h) {
        std::swap(alive[sure], alive.back());
        ++sure;
      }
    };
    if (useful.empty()) {
      for (std::uint32_t cls = 0; cls < classes_n; ++cls) {
        consider(cls);  // class order: the member rows are read in order
      }
    } else {
      for (std::uint32_t i = pick_from; i < pick_to; ++i) {
        consider(by_dist_[pick * classes_n + i]);
      }
    }
    // Member-major: one member's row at a time stays in cache, and the
    // spread members cut the set fast.
    for (std::size_t j = sure; j < ecc.size(); ++j) {
      ecc[j] = 0;
    }
    for (std::size_t i = 0; i < order.size() && alive.size() > sure; ++i) {
      const auto row = mh_.row(order[i]);
      std::size_t kept = sure;
      for (std::size_t j = sure; j < alive.size(); ++j) {
        const std::uint8_t d = row[reps_[alive[j]]];
        if (d <= h) {
          alive[kept] = alive[j];
          ecc[kept++] = std::max(ecc[j], d);
        }
      }
      alive.resize(kept);
      ecc.resize(kept);
    }
  };
  // Planner: on a fabric without twins, when even the narrowest landmark
  // window at h = ub holds half the classes or more (a diameter-3
  // dragonfly; members spread over a torus), the candidate walk would touch
  // about every switch anyway, and the sequential, vectorised full scan is
  // the cheaper way to the same answer. With twins (fat trees) the walk
  // examines one switch per class and stays ahead.
  {
    auto narrowest = static_cast<std::uint32_t>(classes_n);
    for (std::size_t l = 0; l < k; ++l) {
      const std::uint32_t* off = bucket_off_.data() + l * kBuckets;
      const int from = std::max(0, hi[l] - ub);
      const int to = std::min<int>(kUnreachable, lo[l] + ub);
      narrowest = std::min(narrowest, off[to + 1] - off[from]);
    }
    if (allow_scan_ && classes_n == mh_.switch_count() &&
        static_cast<std::size_t>(narrowest) * 2 > classes_n) {
      return minimal_height_roots(mh_, members);
    }
  }
  if (ub > lb) {
    pass(ub - 1, ub - 1 == lb);
    if (alive.empty()) {
      pass(ub, true);
    }
  } else {
    pass(ub, true);
  }
  RootChoice out;
  out.height = ub;
  if (alive.empty()) {
    return out;  // cannot happen: the local search's switch has ecc ub
  }
  for (std::size_t j = 0; j < alive.size(); ++j) {
    out.height = std::min<int>(out.height, ecc[j]);
  }
  for (std::size_t j = 0; j < alive.size(); ++j) {
    if (ecc[j] == out.height) {
      const std::uint32_t cls = alive[j];
      out.candidates.insert(out.candidates.end(), class_sw_.begin() + class_off_[cls],
                            class_sw_.begin() + class_off_[cls + 1]);
    }
  }
  std::sort(out.candidates.begin(), out.candidates.end());
  return out;
}

}  // namespace syncfab::sm
