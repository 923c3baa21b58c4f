// The subnet manager's k-port n-tree (sm::make_fat_tree) without LIDs, for
// fabrics past the unicast LID space (49,151 LIDs): the latency study's
// 101,306-node fat tree of 74 ports, 3 levels. The event-driven model and
// the multicast engines need switch indices and ports, not LIDs.
#pragma once

#include <string>

#include "syncfab/sm/fabric.hpp"

namespace syncfab::tb::collective {

// sm::make_fabric(spec), or for "xfattree:ports=P,levels=L" the fat tree
// above, for "xtorus:x=X,y=Y,z=Z,nodes=N" the torus without LIDs (ring-mode
// barriers at 100,000 end nodes). std::invalid_argument (or
// sm::FabricError) naming the bad value.
sm::Fabric make_any_fabric(const std::string& spec);

}  // namespace syncfab::tb::collective
