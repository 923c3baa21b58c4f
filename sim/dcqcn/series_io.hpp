// The incast's figures for scripts: the time series and the barriers as CSV,
// the run's configuration and figures as JSON (scripts/scenarios.py reads
// them; docs/congestion-scenarios.md names the columns).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "incast.hpp"

namespace syncfab::sim::dcqcn {

// One row per sample: end, length, queue_cells, queue_max, pause_tx,
// pause_rx, paused_cycles, barrier_pause_tx, ecn_marks, cnps,
// barriers_done, then flits_<s> and rate_<s> for every sender s.
void write_series_csv(std::ostream& out, const IncastResult& r);

// One row per completed barrier: posted, latency (cycles).
void write_barriers_csv(std::ostream& out, const IncastResult& r);

// {"config": {...}, "figures": {...}}; the barrier figures count the
// barriers posted from cfg.warmup on.
nlohmann::json to_json(const IncastConfig& cfg, const IncastResult& r);

}  // namespace syncfab::sim::dcqcn
