#include "series_io.hpp"

#include <cstddef>
#include <string>

namespace syncfab::sim::dcqcn {

void write_series_csv(std::ostream& out, const IncastResult& r) {
  const std::size_t senders = r.share.size();
  out << "end,length,queue_cells,queue_max,pause_tx,pause_rx,paused_cycles,barrier_pause_tx,"
         "ecn_marks,cnps,barriers_done";
  for (std::size_t s = 0; s < senders; ++s) {
    out << ",flits_" << s;
  }
  for (std::size_t s = 0; s < senders; ++s) {
    out << ",rate_" << s;
  }
  out << '\n';
  for (const auto& x : r.series) {
    out << x.end << ',' << x.length << ',' << x.queue_cells << ',' << x.queue_max << ','
        << x.pause_tx << ',' << x.pause_rx << ',' << x.paused_cycles << ',' << x.barrier_pause_tx
        << ',' << x.ecn_marks << ',' << x.cnps << ',' << x.barriers_done;
    for (const auto f : x.flow_flits) {
      out << ',' << f;
    }
    for (const auto v : x.flow_rate) {
      out << ',' << v;
    }
    out << '\n';
  }
}

void write_barriers_csv(std::ostream& out, const IncastResult& r) {
  out << "posted,latency\n";
  for (const auto& b : r.barriers) {
    out << b.posted << ',' << b.latency << '\n';
  }
}

nlohmann::json to_json(const IncastConfig& cfg, const IncastResult& r) {
  nlohmann::json c = {
      {"senders", cfg.senders},
      {"payload_flits", cfg.payload_flits},
      {"cycles", cfg.cycles},
      {"warmup", cfg.warmup},
      {"link_delay", cfg.link_delay},
      {"prio", cfg.prio},
      {"dcqcn", cfg.dcqcn},
      {"seed", cfg.seed},
      {"flows", cfg.flows},
      {"xoff", cfg.xoff},
      {"xon", cfg.xon},
      {"kmin", cfg.kmin},
      {"kmax", cfg.kmax},
      {"pmax", cfg.pmax},
      {"ecn_dynamic", cfg.ecn_dynamic},
      {"sample_every", cfg.sample_every},
      {"barrier_every", cfg.barrier_every},
      {"barrier_first", cfg.barrier_first},
      {"barrier_fanout", cfg.barrier_fanout},
      {"barrier_prio", cfg.barrier_prio},
  };
  const BarrierStats st = barrier_stats(r, cfg.warmup);
  nlohmann::json f = {
      {"pause_frames", r.pause_frames},
      {"barrier_pause_frames", r.barrier_pause_frames},
      {"lossless_drops", r.lossless_drops},
      {"throughput", r.throughput},
      {"jain", r.jain},
      {"share", r.share},
      {"cnps", r.cnps},
      {"ecn_marks", r.ecn_marks},
      {"delivered_packets", r.delivered_packets},
      {"delivered_flits", r.delivered_flits},
      {"barriers_posted", r.barriers_posted},
      {"barriers_completed", r.barriers.size()},
      {"barriers_failed", r.barriers_failed},
      {"barrier_latency",
       {{"count", st.count}, {"median", st.median}, {"p99", st.p99}, {"max", st.max}}},
  };
  return {{"config", c}, {"figures", f}};
}

}  // namespace syncfab::sim::dcqcn
