#pragma once
// One upload (CLI or HTTP) = one transaction: unpack archives, recognise and parse every file,
// resolve its axes (explicit > path > prefix columns), then store all of it or nothing.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "ingest/archive.hpp"
#include "ingest/records.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

struct UploadMeta {
  std::string run;  // "" = <platform>-<UTC timestamp>
  std::string platform;
  std::string device;
  std::string torch_version;
  std::string commit;
  std::string created_at;  // "" = now
  std::vector<std::string> tags;
  std::string environment_json = "{}";
  ingest::Axes axes;  // explicit axes; they override what paths and prefix columns say
  // Files (by path) the explicit axes do not apply to: the reference files the CLI found in a directory, which carry
  // their own axes (their path and content).
  std::set<std::string> own_axes;
  bool replace = false;
  double threshold = 1.0;
  // The verdict on the commit (server/bot/upload_check.hpp): where `commit` is, the pull request it belongs to, and
  // what the run is compared with ("" = the platform's previous run). Not part of the stored run.
  std::string repo, pull_request, baseline;
};

// What an upload did with a file: stored it, found the same bytes stored already, or replaced the run's file of the
// same path (replace=true).
enum class FileStatus { stored, duplicate, replaced };
std::string_view to_string(FileStatus s);  // "stored", "duplicate", "replaced"

struct FileSummary {
  std::string path, format, suite, dtype, mode, kind, device, config;
  std::int64_t rows = 0, slow = 0, failed = 0, accuracy_failed = 0, duplicates_dropped = 0, expectations = 0,
               invalid = 0;
  FileStatus status = FileStatus::stored;
  std::int64_t stored_file_id = 0;           // a performance file stored by this upload (feeds the backlog)
  std::vector<ingest::CsvWarning> warnings;  // accepted but not kept as written (extra cells dropped)
};

struct IngestSummary {
  std::string run;
  std::vector<FileSummary> files;
  [[nodiscard]] bool stored_anything() const;
};

// Reads a UploadMeta from a JSON object ({"run","platform",...,"tags":[...],"environment":{...}}),
// filling only the fields it names. Used for the multipart `meta` part.
Result<void> merge_meta_json(UploadMeta& meta, std::string_view json_text);

// Memory: the upload's bytes (owned or borrowed), one deflated copy of each file and ~24 bytes per kept row;
// rows are read again from the bytes while they are inserted (ingest::scan_results_csv). After an upload of more
// than kTrimAfterBytes the freed heap is handed back to the system (malloc_trim).
inline constexpr std::size_t kTrimAfterBytes = 8u << 20;

Result<IngestSummary> ingest_files(schema::Store& store, const UploadMeta& meta, std::vector<ingest::InputFile> files,
                                   const ingest::UnpackLimits& limits = {}, const ingest::CsvLimits& csv_limits = {});

// {"run","files":[{...,"warnings":[...]}],"errors":[],"warnings":[{"file","code","message","rows","cells","line"}]}
nlohmann::json to_json(const IngestSummary& summary);

}  // namespace perftriage::server
