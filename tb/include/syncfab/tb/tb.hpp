// The C++ test harness, in one include. See tb/README.md.
#pragma once

#include "syncfab/tb/apb.hpp"
#include "syncfab/tb/check.hpp"
#include "syncfab/tb/coverage.hpp"
#include "syncfab/tb/event.hpp"
#include "syncfab/tb/resets.hpp"
#include "syncfab/tb/scoreboard.hpp"
#include "syncfab/tb/sim.hpp"
#include "syncfab/tb/stream.hpp"
#include "syncfab/tb/task.hpp"
#include "syncfab/tb/test.hpp"
#include "syncfab/tb/timeout.hpp"
