#pragma once
// Minimal-height root selection without scanning every switch per group
// (FULB-MC's second stated weakness). Exact: RootIndex::roots() returns the
// same RootChoice as minimal_height_roots() (height and candidates in index
// order), which the property tests check on every generator.
//
// Built once per fabric (like MinHop), it holds
//  - twin classes: switches with the same distance to every terminal switch
//    (one with an end node) are interchangeable as roots of any group whose
//    member switches are terminal; only one representative is examined (the
//    400 top switches of the 40-port fat tree are one class);
//  - landmarks: a few terminal switches picked farthest-first, and for each the
//    representatives bucketed by distance to it.
// A group's lower bound on the height comes from the triangle inequality
// (ecc(s) >= |d(s,l) - d(m,l)| for every landmark l and member m) and from the
// member pair farthest apart; for h from there up, only representatives in
// the narrowest landmark window [max_m d(m,l) - h, min_m d(m,l) + h] are
// enumerated, filtered by the other landmarks' windows and then checked
// exactly against the members (extreme members first, stop at the first one
// farther than h). The first h with a survivor is the minimal height.
#include <cstdint>
#include <span>
#include <vector>

#include "syncfab/sm/minhop.hpp"
#include "syncfab/sm/multicast.hpp"

namespace syncfab::sm {

class RootIndex {
 public:
  // allow_scan: let the planner answer with the full scan on a fabric
  // without twins when no landmark window excludes at least half the
  // switches (false: always walk the index, for tests).
  explicit RootIndex(const MinHop& mh, int landmarks = 16, bool allow_scan = true);

  // == minimal_height_roots(mh, member_switches) for every input.
  [[nodiscard]] RootChoice roots(std::span<const SwitchIdx> member_switches) const;

  [[nodiscard]] std::size_t class_count() const { return reps_.size(); }
  [[nodiscard]] std::span<const SwitchIdx> landmarks() const { return landmarks_; }
  [[nodiscard]] std::size_t memory_bytes() const;
  [[nodiscard]] const MinHop& minhop() const { return mh_; }

 private:
  static constexpr int kBuckets = 257;  // distances 0..255, plus the end
  const MinHop& mh_;
  bool allow_scan_;
  std::vector<char> terminal_;            // per switch
  std::vector<SwitchIdx> reps_;           // class representatives, index order
  std::vector<std::uint32_t> class_off_;  // class c's switches: class_sw_[off[c], off[c+1])
  std::vector<SwitchIdx> class_sw_;
  std::vector<SwitchIdx> landmarks_;
  // Per landmark: class ids sorted by distance, and bucket starts.
  std::vector<std::uint32_t> by_dist_;     // landmarks x classes
  std::vector<std::uint32_t> bucket_off_;  // landmarks x kBuckets
  std::vector<std::uint8_t> rep_dist_;     // classes x landmarks: d(rep, landmark)
  std::vector<std::uint8_t> rep_reach_;    // per class: farthest terminal switch
};

}  // namespace syncfab::sm
