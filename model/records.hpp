#pragma once
// The records perftriage keeps: a run, its files, their result rows and counts. Plain structs shared by the store
// (schema/, which reads and writes them) and the analyzers (which decide from them), so that neither needs the
// other. Built on ingest's parsed types (ingest/records.hpp: Axes, ResultRow).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ingest/records.hpp"

namespace perftriage::model {

struct RunMeta {
  std::string key;
  std::string platform;
  std::string device;
  std::string torch_version;
  std::string commit;
  std::string created_at;  // ISO-8601 UTC; "" = now
  std::vector<std::string> tags;
  std::string environment_json = "{}";  // a JSON object
};

struct RunRecord {
  std::int64_t id = 0;
  RunMeta meta;
};

struct FileRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string path;
  std::string format;  // performance | accuracy | reference:<format>
  ingest::Axes axes;
  std::string sha256;
  std::int64_t size = 0;
  std::int64_t row_count = 0;
  std::int64_t duplicates_dropped = 0;
  std::string uploaded_at;
  bool raw_dropped = false;  // the retention task dropped the raw bytes (raw_files_days); the parsed rows stay
};

// Per-row flags decided by analyzers before insertion.
struct RowFlags {
  bool failed = false;
  bool accuracy_failed = false;
  bool invalid = false;  // stored with speedup (and eager latency) NULL: see schema/migrations/006_invalid_flag.sql
};

struct ResultRecord {
  std::string run_key;
  std::string platform;
  std::string source;  // the file path as uploaded
  std::string suite, dtype, mode, kind, config;
  std::string model;
  std::int64_t line = 0;
  std::string dev;
  std::int64_t batch_size = 0;
  std::optional<double> speedup;
  std::string speedup_text;
  std::optional<double> abs_latency_ms, eager_latency_ms, compilation_latency_s, compression_ratio, eager_peak_mem_gb,
      dynamo_peak_mem_gb;
  std::optional<std::int64_t> calls_captured, unique_graphs, graph_breaks, unique_graph_breaks, autograd_captures,
      autograd_compiles, cudagraph_skips, fallbacks_to_eager;
  std::string accuracy;
  bool short_row = false;
  bool failed = false;
  bool accuracy_failed = false;
  bool unreliable = false;
  bool deviates = false;
  bool invalid = false;
  std::optional<std::string> expected_accuracy;
  std::string extra_json;  // "" when the row had no unknown columns
};

struct MissingRecord {
  std::string suite, dtype, mode, kind, config, model;
  std::string reason;    // "previous_run" | "reference"
  std::string evidence;  // the previous run's key, or the reference file's path
};

struct RunCounts {
  std::int64_t files = 0, rows = 0, slow = 0, failed = 0, accuracy_failed = 0, unreliable = 0, deviates = 0,
               invalid = 0;
};

}  // namespace perftriage::model
