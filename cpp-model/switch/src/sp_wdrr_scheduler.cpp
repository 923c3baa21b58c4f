#include "syncfab/model/sp_wdrr_scheduler.hpp"

#include <bit>
#include <stdexcept>
#include <string>

namespace syncfab::model {

SpWdrrScheduler::SpWdrrScheduler(SchedParams params) : params_(params) {
  if (params_.num_q < 1 || params_.num_q > 64) {
    throw std::invalid_argument("sp_wdrr_sched: NumQ = " + std::to_string(params_.num_q) +
                                " is outside 1..64");
  }
  if (params_.len_w < 1 || params_.len_w > 31 || params_.weight_w < 1 || params_.weight_w > 31) {
    throw std::invalid_argument("sp_wdrr_sched: LenW = " + std::to_string(params_.len_w) +
                                " / WeightW = " + std::to_string(params_.weight_w) +
                                " must each be in 1..31");
  }
  all_ = params_.num_q == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << params_.num_q) - 1;
  deficit_.assign(params_.num_q, 0);
}

void SpWdrrScheduler::reset() {
  ptr_ = 0;
  deficit_.assign(params_.num_q, 0);
}

void SpWdrrScheduler::check(const SchedInputs& in) const {
  const unsigned n = params_.num_q;
  if (in.len.size() != n || in.weight.size() != n) {
    throw std::invalid_argument("sp_wdrr_sched: len/weight have " + std::to_string(in.len.size()) +
                                "/" + std::to_string(in.weight.size()) + " entries, NumQ is " +
                                std::to_string(n));
  }
  if (((in.valid | in.sp) & ~all_) != 0) {
    throw std::out_of_range("sp_wdrr_sched: valid/sp mask names a queue >= NumQ");
  }
  for (unsigned q = 0; q < n; ++q) {
    if (in.len[q] >> params_.len_w != 0 || in.weight[q] >> params_.weight_w != 0) {
      throw std::out_of_range("sp_wdrr_sched: queue " + std::to_string(q) + " len " +
                              std::to_string(in.len[q]) + " / weight " +
                              std::to_string(in.weight[q]) + " overflow LenW/WeightW");
    }
    // The spec's two input assertions (checked whatever ready is).
    if ((in.sp >> q & 1U) == 0 && in.weight[q] == 0) {
      throw std::invalid_argument("sp_wdrr_sched: weight of non-SP queue " + std::to_string(q) +
                                  " is 0");
    }
    if ((in.valid >> q & 1U) != 0 && in.len[q] == 0) {
      throw std::invalid_argument("sp_wdrr_sched: head length of valid queue " + std::to_string(q) +
                                  " is 0");
    }
  }
}

SchedDecision SpWdrrScheduler::decide(const SchedInputs& in) const {
  check(in);
  SchedDecision out;
  out.ptr = ptr_;
  const std::uint64_t sp_ready = in.valid & in.sp;
  if (sp_ready != 0) {
    out.grant = {true, static_cast<unsigned>(63 - std::countl_zero(sp_ready))};
    out.rule = SchedRule::kSp;
    return out;
  }
  const std::uint64_t w = in.valid & ~in.sp & all_;
  if (w == 0) {
    return out;
  }
  const bool ptr_in_w = (w >> ptr_ & 1U) != 0;
  if (ptr_in_w && deficit_[ptr_] >= in.len[ptr_]) {
    out.grant = {true, ptr_};
    out.rule = SchedRule::kWdrrStay;
    out.update = true;
    out.credited = ptr_;
    out.new_deficit = deficit_[ptr_] - in.len[ptr_];
    return out;
  }
  out.update = true;
  out.zero_old = !ptr_in_w;
  out.rule = SchedRule::kWdrrCredit;
  // First queue of W strictly after ptr, cyclically; ptr itself last.
  unsigned n = ptr_;
  for (unsigned i = 1; i <= params_.num_q; ++i) {
    const unsigned q = (ptr_ + i) % params_.num_q;
    if ((w >> q & 1U) != 0) {
      n = q;
      break;
    }
  }
  // n == ptr only when ptr is in W: the quantum adds to its old deficit.
  std::uint64_t d = deficit_[n] + in.weight[n];
  if (d >> deficit_w() != 0) {
    throw std::logic_error("sp_wdrr_sched: deficit of queue " + std::to_string(n) +
                           " overflows its " + std::to_string(deficit_w()) + " bits");
  }
  out.ptr = n;
  out.credited = n;
  if (d >= in.len[n]) {
    out.grant = {true, n};
    out.rule = SchedRule::kWdrrMove;
    d -= in.len[n];
  }
  out.new_deficit = d;
  return out;
}

SchedGrant SpWdrrScheduler::step(const SchedInputs& in, bool ready) {
  const SchedDecision out = decide(in);
  if (ready && out.update) {
    if (out.zero_old) {
      deficit_[ptr_] = 0;
    }
    deficit_[out.credited] = out.new_deficit;
    ptr_ = out.ptr;
  }
  return out.grant;
}

}  // namespace syncfab::model
