// The reaction point's rate law, docs/nic/dcqcn.md section 5, statement by
// statement.
#include "syncfab/model/dcqcn_rp.hpp"

#include <algorithm>

#include <syncfab/fmt/formats.hpp>

namespace syncfab::model {

namespace {

constexpr std::uint32_t kLine = fmt::kRateLine;
constexpr std::uint32_t kOne = fmt::kAlphaOne;
constexpr std::uint32_t kStageMax = 255;  // T and BC are 8 bits, saturating

}  // namespace

void DcqcnRp::reset() noexcept {
  rc_ = kLine;
  rt_ = kLine;
  alpha_ = kOne;
  alpha_timer_ = 0;
  rate_timer_ = 0;
  byte_count_ = 0;
  t_ = 0;
  bc_ = 0;
}

void DcqcnRp::on_cnp(const DcqcnParams& p) noexcept {
  // The cut uses alpha before this CNP's update (the paper's order).
  rt_ = rc_;
  const auto cut = static_cast<std::uint32_t>((std::uint64_t{rc_} * alpha_) >> 17);
  rc_ = std::max(rc_ - cut, p.rate_min);
  alpha_ = alpha_ - (alpha_ >> p.g_shift) + (kOne >> p.g_shift);
  alpha_timer_ = 0;
  rate_timer_ = 0;
  byte_count_ = 0;
  t_ = 0;
  bc_ = 0;
}

void DcqcnRp::increase(const DcqcnParams& p) noexcept {
  const std::uint32_t hi = std::max(t_, bc_);
  const std::uint32_t lo = std::min(t_, bc_);
  if (hi <= p.stages) {
    // fast recovery: RT unchanged
  } else if (lo > p.stages) {
    const std::uint64_t step = std::uint64_t{p.rate_hai} * (lo - p.stages);
    rt_ = static_cast<std::uint32_t>(std::min<std::uint64_t>(rt_ + step, kLine));
  } else {
    rt_ = std::min(rt_ + p.rate_ai, kLine);
  }
  rc_ = (rt_ + rc_) >> 1;
}

void DcqcnRp::end_cycle(const DcqcnParams& p, bool cnp) noexcept {
  if (cnp) {
    on_cnp(p);
    return;
  }
  if (++alpha_timer_ >= p.alpha_timer) {
    alpha_ -= alpha_ >> p.g_shift;
    alpha_timer_ = 0;
  }
  if (++rate_timer_ >= p.rate_timer) {
    rate_timer_ = 0;
    t_ = std::min(t_ + 1, kStageMax);
    increase(p);
  }
  if (byte_count_ >= p.byte_counter) {
    byte_count_ -= p.byte_counter;
    bc_ = std::min(bc_ + 1, kStageMax);
    increase(p);
  }
}

}  // namespace syncfab::model
