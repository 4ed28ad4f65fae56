// Benchmark result CSVs (POST /uploads, `perftriage ingest`): sniff_csv, parse_results_csv, and the streaming pair
// scan_results_csv + for_each_result_row, which must keep exactly the rows parse_results_csv keeps.
// Input: the CSV bytes; CsvLimits small or default by the LAST byte (FuzzedDataProvider), so raw seeds stay readable.
#include <fuzzer/FuzzedDataProvider.h>

#include "fuzz/fuzz_util.hpp"
#include "ingest/benchmark_csv.hpp"

using namespace perftriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  ingest::CsvLimits limits;
  if (fdp.ConsumeBool()) {  // small limits reach the limit paths with small inputs
    limits.max_columns = 24;
    limits.max_cell_bytes = 64;
    limits.max_extra_cells = 2;
    limits.max_extra_bytes = 16;
  }
  const std::string bytes = fdp.ConsumeRemainingBytesAsString();
  (void)ingest::sniff_csv(bytes, limits);
  auto parsed = ingest::parse_results_csv(bytes, "fuzz/results.csv", limits);
  auto scanned = ingest::scan_results_csv(bytes, "fuzz/results.csv", limits);
  FUZZ_CHECK(parsed.ok() == scanned.ok(),
             "parse_results_csv and scan_results_csv disagree: " + (parsed ? std::string("ok") : parsed.error().code) +
                 " vs " + (scanned ? std::string("ok") : scanned.error().code));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().code.empty(), parsed.error().message);
    FUZZ_CHECK(parsed.error().code == scanned.error().code, parsed.error().code + " vs " + scanned.error().code);
    return 0;
  }
  std::int64_t previous_line = 0;
  for (const auto& row : parsed->rows) {
    FUZZ_CHECK(row.line > 0, "row line numbers are 1-based");
    FUZZ_CHECK(row.line > previous_line, "rows stay in file order");
    previous_line = row.line;
    (void)row.eager_latency_ms();
  }
  FUZZ_CHECK(parsed->duplicates_dropped >= 0, "negative duplicates_dropped");
  FUZZ_CHECK(scanned->rows.size() == parsed->rows.size(), "scan keeps " + std::to_string(scanned->rows.size()) +
                                                              " rows, parse " + std::to_string(parsed->rows.size()));
  FUZZ_CHECK(scanned->summary.duplicates_dropped == parsed->duplicates_dropped, "duplicates_dropped differs");
  std::size_t i = 0;
  auto replay = ingest::for_each_result_row(*scanned, bytes, "fuzz/results.csv", [&](const ingest::ResultRow& row) {
    FUZZ_CHECK(i < parsed->rows.size(), "for_each_result_row yields more rows than were kept");
    const auto& want = parsed->rows[i++];
    FUZZ_CHECK(row.line == want.line && row.model == want.model && row.dev == want.dev &&
                   row.batch_size == want.batch_size && row.speedup_text == want.speedup_text &&
                   row.accuracy == want.accuracy && row.short_row == want.short_row,
               "row at line " + std::to_string(want.line) + " differs between parse and scan+replay");
    return true;
  });
  FUZZ_CHECK(replay.ok(), "for_each_result_row fails on what scan_results_csv accepted: " +
                              (replay ? std::string() : replay.error().message));
  FUZZ_CHECK(i == parsed->rows.size(), "for_each_result_row yields fewer rows than were kept");
  return 0;
}
