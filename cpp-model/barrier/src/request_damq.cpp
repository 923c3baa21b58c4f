#include "syncfab/model/request_damq.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace syncfab::model {

RequestDamq::RequestDamq(unsigned num_ctx, unsigned capacity)
    : queues_(num_ctx), capacity_(capacity) {
  if (capacity == 0) {
    throw std::invalid_argument("request DAMQ capacity 0: it must hold at least one entry");
  }
}

bool RequestDamq::contains(unsigned ctx, const ParkedNotify& n) const {
  const auto& q = queues_.at(ctx);
  return std::find(q.begin(), q.end(), n) != q.end();
}

bool RequestDamq::park(unsigned ctx, const ParkedNotify& n) {
  if (full()) {
    return false;
  }
  queues_.at(ctx).push_back(n);
  ++used_;
  return true;
}

void RequestDamq::drain(unsigned ctx, const std::function<bool(const ParkedNotify&)>& take) {
  auto& q = queues_.at(ctx);
  std::deque<ParkedNotify> keep;
  for (const auto& n : q) {
    if (take(n)) {
      --used_;
    } else {
      keep.push_back(n);
    }
  }
  q = std::move(keep);
}

void RequestDamq::clear() {
  for (auto& q : queues_) {
    q.clear();
  }
  used_ = 0;
}

}  // namespace syncfab::model
