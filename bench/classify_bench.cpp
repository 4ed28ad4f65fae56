// classify_bench FILE... — classifies each file with the trace classifier and prints, per file, the input size
// (uncompressed), wall time, throughput and the process's peak RSS so far (getrusage), as one JSON line.
// Run one file per process (bench/classify_bench.sh does) for a clean peak-RSS figure.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "analyzers/trace/classify.hpp"

int main(int argc, char** argv) {
  namespace tr = perftriage::analyzers::trace;
  if (argc < 2) {
    std::fprintf(stderr, "usage: classify_bench FILE...\n");
    return 2;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = tr::classify_file(argv[i]);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    if (!r) {
      std::printf("{\"file\": \"%s\", \"error\": \"%s: %s\"}\n", argv[i], r.error().code.c_str(),
                  r.error().message.c_str());
      rc = 1;
      continue;
    }
    const double bytes = r->value("bytes", 0.0);
    const auto kernels = (*r)["census"].value("device_kernels", std::int64_t{0});
    std::printf(
        "{\"file\": \"%s\", \"bytes\": %.0f, \"seconds\": %.3f, \"mb_per_s\": %.1f, \"device_kernels\": %lld, "
        "\"peak_rss_mb\": %.1f, \"rss_over_input\": %.2f}\n",
        argv[i], bytes, s, bytes / 1e6 / s, static_cast<long long>(kernels), static_cast<double>(ru.ru_maxrss) / 1024.0,
        static_cast<double>(ru.ru_maxrss) * 1024.0 / bytes);
  }
  return rc;
}
