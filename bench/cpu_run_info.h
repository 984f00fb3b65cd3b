// What a CPU bench run says about itself: the machine, the peers' versions and how they were set
// up, the settings, and how busy the machine was, as the first and last JSON lines (kind "run"
// and "end") and a banner on stderr. Numbers from a shared machine mean little without them.
#pragma once

#include <string>
#include <vector>

#include "cpu_bench_options.h"
#include "cpu_peers.h"

namespace plaidml_bench {

std::string run_json(const Options& o, const std::vector<Peer>& peers);
std::string run_banner(const Options& o, const std::vector<Peer>& peers);

// {"kind": "end", "elapsed_s": ..., "others_cores": ..., "loadavg": [...]}
std::string end_json(double elapsed_s, double others_cores);

}  // namespace plaidml_bench
