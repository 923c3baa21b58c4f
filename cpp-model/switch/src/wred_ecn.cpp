#include "syncfab/model/wred_ecn.hpp"

#include <stdexcept>
#include <string>

namespace syncfab::model {

namespace {

void check_field(const char* what, std::uint32_t v, unsigned width) {
  if (v >> width != 0) {
    throw std::out_of_range("wred_ecn: " + std::string(what) + " = " + std::to_string(v) +
                            " does not fit in " + std::to_string(width) + " bits");
  }
}

}  // namespace

WredEcn::WredEcn(WredParams params) : params_(params), lfsr_(params.lfsr_seed) {
  if (params_.qlen_w < 1 || params_.qlen_w > 16) {
    throw std::invalid_argument("wred_ecn: QLenW = " + std::to_string(params_.qlen_w) +
                                " is outside 1..16");
  }
  if (params_.prob_w < 1 || params_.prob_w > 16) {
    throw std::invalid_argument("wred_ecn: ProbW = " + std::to_string(params_.prob_w) +
                                " is outside 1..16");
  }
  if (params_.lfsr_seed == 0) {
    throw std::invalid_argument("wred_ecn: LfsrSeed 0 is the LFSR's lock-up state");
  }
}

void WredEcn::check(std::uint32_t qlen, const WredConfig& cfg) const {
  check_field("qlen", qlen, params_.qlen_w);
  check_field("kmin", cfg.kmin, params_.qlen_w);
  check_field("kmax", cfg.kmax, params_.qlen_w);
  check_field("pmax", cfg.pmax, params_.prob_w);
}

bool WredEcn::selected(std::uint16_t r, std::uint32_t qlen, const WredConfig& cfg) const {
  check(qlen, cfg);
  // The rules apply in the spec's order: below Kmin wins over "at or above
  // Kmax", which matters only when Kmax < Kmin (docs/switch-egress.md).
  if (!cfg.enable || qlen < cfg.kmin) {
    return false;
  }
  if (qlen >= cfg.kmax) {
    return true;
  }
  // Full width on both sides (at most 32 bits each): no truncation.
  const std::uint64_t lhs = std::uint64_t{r} * (cfg.kmax - cfg.kmin);
  const std::uint64_t rhs = (std::uint64_t{cfg.pmax} << (16U - params_.prob_w)) * (qlen - cfg.kmin);
  return lhs < rhs;
}

WredDecision WredEcn::decide(const WredPacket& pkt, const WredConfig& cfg) const {
  if (static_cast<unsigned>(pkt.ecn) > 3U) {
    throw std::out_of_range("wred_ecn: ECN code " + std::to_string(static_cast<unsigned>(pkt.ecn)) +
                            " is not 2 bits");
  }
  WredDecision d;
  d.hit = selected(lfsr_, pkt.qlen, cfg);
  if (pkt.ecn != Ecn::kNotEct) {
    d.mark = d.hit;
    d.ecn = d.hit ? Ecn::kCe : pkt.ecn;
  } else {
    d.drop = d.hit && !pkt.lossless;
    d.ecn = Ecn::kNotEct;
  }
  return d;
}

WredDecision WredEcn::enqueue(const WredPacket& pkt, const WredConfig& cfg) {
  const WredDecision d = decide(pkt, cfg);
  clock(true);
  return d;
}

}  // namespace syncfab::model
