#include "server/app/ingest_service.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
#include <ctime>
#include <future>
#include <functional>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_set>

#include "analyzers/flags/flags.hpp"
#include "common/bounded_json.hpp"
#include "common/strings.hpp"
#include "ingest/artifact_path.hpp"
#include "ingest/benchmark_csv.hpp"
#include "ingest/reference_csv.hpp"
#include "schema/backlog_store.hpp"
#include "schema/triage_store.hpp"
#include "schema/blob_codec.hpp"
#include "server/app/run_fields.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

// A file recognised and validated, not yet stored. Result rows are not kept: only where each kept row is in the
// bytes (ingest::ScannedResults); store_file() reads them again while inserting them.
struct PreparedFile {
  ingest::InputFile input;
  std::string sha256;
  std::string compressed;  // the bytes as stored (schema::compress_file_bytes)
  ingest::Axes axes;
  std::string format;
  std::string header;
  ingest::ScannedResults results;     // when format is performance / accuracy
  ingest::ParsedReference reference;  // when format is reference:*
  bool is_reference = false;
};

std::string default_run_key(const std::string& platform) {
  std::string stamp = schema::now_iso8601();  // 2026-11-29T15:49:45Z -> 20261129T154945Z
  stamp.erase(std::remove_if(stamp.begin(), stamp.end(), [](char c) { return c == '-' || c == ':'; }), stamp.end());
  std::string key = platform;
  std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
  return key + "-" + stamp;
}

Result<std::vector<ingest::InputFile>> expand_archives(std::vector<ingest::InputFile> files,
                                                       const ingest::UnpackLimits& limits) {
  std::vector<ingest::InputFile> out;
  for (auto& f : files) {
    if (ingest::detect_archive(f.data()) == ingest::ArchiveType::none) {
      out.push_back(std::move(f));
      continue;
    }
    PT_ASSIGN(auto members, ingest::unpack_archive(f.data(), f.path, limits));
    for (auto& m : members) out.push_back(std::move(m));
  }
  return out;
}

std::string first_line(std::string_view bytes) {
  std::size_t start = 0;
  while (start < bytes.size()) {
    auto end = bytes.find('\n', start);
    if (end == std::string_view::npos) end = bytes.size();
    std::string_view line = bytes.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) return std::string(line.substr(0, 2000));
    start = end + 1;
  }
  return {};
}

constexpr std::size_t kCompressBesideScanBytes = 4u << 20;

Result<PreparedFile> prepare(ingest::InputFile file, const UploadMeta& meta, const ingest::CsvLimits& csv_limits) {
  PreparedFile p;
  const std::string_view bytes = file.data();
  // A large file is compressed on a second thread while it is hashed and scanned (a 1M-row file: 0.16 s of zstd
  // behind 0.4 s of hashing and scanning; zlib took 0.7 s and the scan waited 0.25 s for it); the future's destructor
  // joins it on every return.
  std::future<std::string> compressed;
  if (bytes.size() >= kCompressBesideScanBytes) {
    compressed = std::async(std::launch::async, [bytes] { return schema::compress_file_bytes(bytes); });
  } else {
    p.compressed = schema::compress_file_bytes(bytes);
  }
  p.sha256 = schema::sha256_hex(bytes);
  p.header = first_line(bytes);
  if (bytes.empty()) {
    return make_error(ErrorKind::invalid_input, "empty_file", "file is empty", file.path, 0);
  }
  p.axes = meta.own_axes.count(file.path) ? ingest::Axes{} : meta.axes;
  ingest::fill_missing(p.axes, ingest::axes_from_path(file.path));
  switch (ingest::sniff_csv(bytes, csv_limits)) {
    case ingest::CsvFlavor::results: {
      PT_ASSIGN(p.results, ingest::scan_results_csv(bytes, file.path, csv_limits));
      const std::string& kind = p.results.summary.kind;
      if (!meta.axes.kind.empty() && meta.axes.kind != kind) {
        return make_error(ErrorKind::invalid_input, "kind_mismatch",
                          "the upload says kind=" + meta.axes.kind + " but the header is a " + kind + " header",
                          file.path, 1);
      }
      p.axes.kind = kind;  // the header is the truth; a path saying otherwise loses
      ingest::fill_missing(p.axes, p.results.summary.content_axes);
      if (p.axes.device.empty() && !p.results.rows.empty()) {  // the first kept row's dev
        PT_TRY(ingest::for_each_result_row(p.results, bytes, file.path, [&](const ingest::ResultRow& row) {
          p.axes.device = row.dev;
          return false;
        }));
      }
      p.format = kind;
      std::vector<std::string> missing;
      if (p.axes.suite.empty()) missing.emplace_back("suite");
      if (p.axes.dtype.empty()) missing.emplace_back("dtype");
      if (p.axes.mode.empty()) missing.emplace_back("mode");
      if (!missing.empty()) {
        return make_error(ErrorKind::invalid_input, "unknown_axes",
                          "cannot determine " + join(missing, ", ") +
                              " from the path or the content; pass them explicitly (suite, dtype, mode)",
                          file.path, 0, missing.front());
      }
      break;
    }
    case ingest::CsvFlavor::reference: {
      PT_ASSIGN(p.reference, ingest::parse_reference_csv(bytes, file.path, p.axes, csv_limits));
      p.is_reference = true;
      p.format = "reference:" + p.reference.format;
      p.axes.kind = "reference";
      break;
    }
    case ingest::CsvFlavor::unknown:
      return make_error(ErrorKind::invalid_input, "no_header",
                        "no recognizable benchmark or reference header (expected columns such as "
                        "dev,name,batch_size,speedup or name,accuracy); first line: '" +
                            p.header.substr(0, 120) + "'",
                        file.path, 1);
  }
  if (compressed.valid()) p.compressed = compressed.get();
  p.input = std::move(file);
  return p;
}

Result<std::vector<PreparedFile>> prepare_all(std::vector<ingest::InputFile> files, const UploadMeta& meta,
                                              const ingest::CsvLimits& csv_limits) {
  const std::size_t n = files.size();
  std::vector<std::optional<Result<PreparedFile>>> results(n);
  const std::size_t workers = std::min<std::size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) results[i].emplace(prepare(std::move(files[i]), meta, csv_limits));
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::vector<PreparedFile> out;
  out.reserve(n);
  for (auto& r : results) {
    if (!*r) return std::move(*r).error();
    out.push_back(std::move(**r));
  }
  return out;
}

// Reads the kept rows of a result file again and hands each, with its flags, to `sink` (which may store it).
Result<analyzers::FlagCounts> judge_rows(
    const PreparedFile& p, const UploadMeta& meta,
    const std::function<Result<void>(const ingest::ResultRow&, const analyzers::RowVerdict&)>& sink) {
  analyzers::FlagCounts counts;
  std::optional<Error> failure;
  PT_TRY(ingest::for_each_result_row(p.results, p.input.data(), p.input.path, [&](const ingest::ResultRow& row) {
    const auto v = analyzers::judge_row(row, p.results.summary.kind, meta.threshold);
    counts.add(v);
    if (!sink) return true;
    auto stored = sink(row, v);
    if (stored) return true;
    failure = std::move(stored).error();
    return false;
  }));
  if (failure) return std::move(*failure);
  return counts;
}

void set_counts(FileSummary& s, const analyzers::FlagCounts& counts) {
  s.rows = counts.rows;
  s.slow = counts.slow;
  s.failed = counts.failed;
  s.accuracy_failed = counts.accuracy_failed;
  s.invalid = counts.invalid;
}

// "suite=timm_models dtype=float32 mode=training kind=performance device=xpu config=": a file's axes in a message.
std::string axes_text(const ingest::Axes& a) {
  return "suite=" + a.suite + " dtype=" + a.dtype + " mode=" + a.mode + " kind=" + a.kind + " device=" + a.device +
         " config=" + a.config;
}

Result<FileSummary> store_file(schema::Store& store, std::int64_t run_id, const PreparedFile& p,
                               const UploadMeta& meta) {
  FileSummary s;
  s.path = p.input.path;
  s.format = p.format;
  s.suite = p.axes.suite;
  s.dtype = p.axes.dtype;
  s.mode = p.axes.mode;
  s.kind = p.axes.kind;
  s.device = p.axes.device;
  s.config = p.axes.config;
  if (p.is_reference) {
    s.expectations = static_cast<std::int64_t>(p.reference.rows.size());
  } else {
    s.duplicates_dropped = p.results.summary.duplicates_dropped;
    s.warnings = p.results.summary.warnings;
  }

  PT_ASSIGN(const auto live, schema::live_file(store.db(), run_id, p.input.path));
  // A duplicate is the same bytes under the same axes: the same bytes under other axes would be other rows, so they
  // are refused like other bytes, never answered as stored.
  const bool same_axes = live && live->axes == p.axes;
  if (live && live->sha256 == p.sha256 && same_axes) {
    s.status = FileStatus::duplicate;
    if (!p.is_reference) {
      PT_ASSIGN(const auto counts, judge_rows(p, meta, nullptr));
      set_counts(s, counts);
    }
    return s;
  }
  if (live && !meta.replace && live->sha256 == p.sha256) {
    return make_error(ErrorKind::conflict, "file_axes",
                      "run already has these bytes stored under " + axes_text(live->axes) + ", not " +
                          axes_text(p.axes) + "; upload with replace=true to store them under the new axes",
                      p.input.path);
  }
  if (live && !meta.replace) {
    return make_error(ErrorKind::conflict, "file_exists",
                      "run already has different bytes for this path (sha256 " + live->sha256.substr(0, 12) +
                          "...); upload with replace=true to supersede it",
                      p.input.path);
  }

  schema::NewFile nf{p.input.path,
                     p.format,
                     p.axes,
                     p.input.data(),
                     p.sha256,
                     p.header,
                     static_cast<std::int64_t>(p.is_reference ? p.reference.rows.size() : p.results.rows.size()),
                     p.results.summary.duplicates_dropped,
                     p.compressed};
  PT_ASSIGN(const std::int64_t file_id, live ? schema::replace_file(store.db(), run_id, live->id, nf)
                                             : schema::insert_file(store.db(), run_id, nf));
  s.status = live ? FileStatus::replaced : FileStatus::stored;
  if (p.is_reference) {
    PT_TRY(schema::insert_expectations(store.db(), run_id, file_id, p.reference.rows));
  } else {
    PT_ASSIGN(auto writer, schema::ResultWriter::open(store.db(), run_id, file_id, p.axes));
    PT_ASSIGN(const auto counts, judge_rows(p, meta, [&](const ingest::ResultRow& row, const analyzers::RowVerdict& v) {
                return writer.add(row, model::RowFlags{v.failed, v.accuracy_failed, v.invalid});
              }));
    PT_TRY(writer.finish());
    set_counts(s, counts);
    if (p.results.summary.kind == "performance") s.stored_file_id = file_id;
  }
  return s;
}

}  // namespace

std::string_view to_string(FileStatus s) {
  switch (s) {
    case FileStatus::stored: return "stored";
    case FileStatus::duplicate: return "duplicate";
    case FileStatus::replaced: break;
  }
  return "replaced";
}

bool IngestSummary::stored_anything() const {
  return std::any_of(files.begin(), files.end(),
                     [](const FileSummary& f) { return f.status != FileStatus::duplicate; });
}

Result<void> merge_meta_json(UploadMeta& meta, std::string_view json_text) {
  // Bounded like every untrusted JSON (depth 64, 1 MiB): the environment is copied and dumped, which recurses.
  auto parsed = parse_bounded_json(json_text, "upload meta");
  if (!parsed) {
    auto e = std::move(parsed).error();
    e.file = "meta";
    return e;
  }
  const json& j = *parsed;
  if (!j.is_object()) {
    return make_error(ErrorKind::invalid_input, "bad_meta", "the meta part must be a JSON object", "meta");
  }
  auto str = [&](const char* key, std::string& into) -> Result<void> {
    if (!j.contains(key)) return {};
    if (!j[key].is_string()) {
      return make_error(ErrorKind::invalid_input, "bad_meta", std::string("meta.") + key + " must be a string", "meta",
                        0, key);
    }
    into = j[key].get<std::string>();
    return {};
  };
  PT_TRY(str("run", meta.run));
  PT_TRY(str("platform", meta.platform));
  PT_TRY(str("device", meta.device));
  PT_TRY(str("torch_version", meta.torch_version));
  PT_TRY(str("commit", meta.commit));
  PT_TRY(str("created_at", meta.created_at));
  PT_TRY(str("suite", meta.axes.suite));
  PT_TRY(str("dtype", meta.axes.dtype));
  PT_TRY(str("mode", meta.axes.mode));
  PT_TRY(str("kind", meta.axes.kind));
  PT_TRY(str("config", meta.axes.config));
  PT_TRY(str("repo", meta.repo));
  PT_TRY(str("baseline", meta.baseline));
  if (j.contains("pr") && j["pr"].is_number_integer()) {
    meta.pull_request = std::to_string(j["pr"].get<std::int64_t>());
  } else {
    PT_TRY(str("pr", meta.pull_request));
  }
  if (j.contains("tags")) {
    if (!j["tags"].is_array()) {
      return make_error(ErrorKind::invalid_input, "bad_meta", "meta.tags must be an array of strings", "meta", 0,
                        "tags");
    }
    for (const auto& t : j["tags"]) {
      if (t.is_string()) meta.tags.push_back(t.get<std::string>());
    }
  }
  if (j.contains("environment")) {
    if (!j["environment"].is_object()) {
      return make_error(ErrorKind::invalid_input, "bad_meta", "meta.environment must be an object", "meta", 0,
                        "environment");
    }
    meta.environment_json = j["environment"].dump();
  }
  if (j.contains("replace") && j["replace"].is_boolean()) meta.replace = j["replace"].get<bool>();
  return {};
}

namespace {

// The whole upload; `files` and everything derived from it are freed when it returns.
Result<IngestSummary> ingest_upload(schema::Store& store, const UploadMeta& meta_in,
                                    std::vector<ingest::InputFile> files, const ingest::UnpackLimits& limits,
                                    const ingest::CsvLimits& csv_limits, std::size_t& upload_bytes) {
  for (const auto& f : files) upload_bytes += f.data().size();
  UploadMeta meta = meta_in;
  meta.axes.suite = ingest::normalize_suite(meta.axes.suite);
  meta.axes.dtype = ingest::normalize_dtype(meta.axes.dtype);
  meta.axes.mode = ingest::normalize_mode(meta.axes.mode);
  meta.axes.kind = ingest::normalize_kind(meta.axes.kind);
  if (meta.platform.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_platform",
                      "the platform (BMG, PVC, A100, ...) is required: the files do not say it", {}, 0, "platform");
  }
  PT_TRY(check_platform(meta.platform));
  if (!meta.run.empty()) PT_TRY(check_run_key(meta.run));
  PT_ASSIGN(meta.created_at, normalize_created_at(meta.created_at, std::time(nullptr)));
  if (files.empty()) return make_error(ErrorKind::invalid_input, "empty_upload", "the upload holds no file");
  PT_ASSIGN(auto expanded, expand_archives(std::move(files), limits));

  std::size_t expanded_bytes = 0;
  std::unordered_set<std::string_view> paths;
  paths.reserve(expanded.size());
  for (const auto& f : expanded) {
    expanded_bytes += f.data().size();
    if (!paths.insert(f.path).second) {
      return make_error(ErrorKind::invalid_input, "duplicate_path", "the upload names this path twice", f.path);
    }
  }
  upload_bytes = std::max(upload_bytes, expanded_bytes);
  // Parsing, hashing and compressing are independent per file: spread them over the cores (the
  // transaction below is serial anyway). The first error in upload order wins, as in a serial loop.
  PT_ASSIGN(const auto prepared, prepare_all(std::move(expanded), meta, csv_limits));

  IngestSummary summary;
  summary.run = meta.run.empty() ? default_run_key(meta.platform) : meta.run;
  model::RunMeta run_meta{summary.run, meta.platform,   meta.device, meta.torch_version,
                          meta.commit, meta.created_at, meta.tags,   meta.environment_json};
  if (run_meta.device.empty() && !prepared.empty()) run_meta.device = prepared.front().axes.device;

  PT_ASSIGN(auto tx, schema::Transaction::begin(store.db()));
  PT_ASSIGN(const std::int64_t run_id, schema::ensure_run(store.db(), run_meta));
  for (const auto& p : prepared) {
    // An error rolls the transaction back: nothing of this upload stays.
    PT_ASSIGN(auto s, store_file(store, run_id, p, meta));
    summary.files.push_back(std::move(s));
  }
  PT_TRY(schema::refresh_run_flags(store.db(), run_id));
  std::vector<std::int64_t> performance_files;
  for (const auto& f : summary.files) {
    if (f.stored_file_id) performance_files.push_back(f.stored_file_id);
  }
  PT_TRY(schema::update_backlog(store.db(), run_id, performance_files));
  PT_TRY(schema::apply_auto_triage(store.db(), run_id));
  PT_TRY(tx.commit());
  return summary;
}

}  // namespace

Result<IngestSummary> ingest_files(schema::Store& store, const UploadMeta& meta, std::vector<ingest::InputFile> files,
                                   const ingest::UnpackLimits& limits, const ingest::CsvLimits& csv_limits) {
  std::size_t upload_bytes = 0;
  auto summary = ingest_upload(store, meta, std::move(files), limits, csv_limits, upload_bytes);
  // The upload's buffers are freed by now; glibc keeps freed heap (and the parse threads' arenas) for reuse,
  // which after a large upload would leave the process hundreds of MB bigger. Hand it back.
#if defined(__GLIBC__)
  if (upload_bytes > kTrimAfterBytes) malloc_trim(0);
#endif
  return summary;
}

namespace {

json warnings_json(const FileSummary& f, bool with_file) {
  json out = json::array();
  for (const auto& w : f.warnings) {
    json j = {{"code", w.code}, {"message", w.message}, {"rows", w.rows}, {"cells", w.cells}, {"line", w.first_line}};
    if (with_file) j["file"] = f.path;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace

json to_json(const IngestSummary& summary) {
  json files = json::array();
  json warnings = json::array();
  for (const auto& f : summary.files) {
    files.push_back({{"path", f.path},
                     {"format", f.format},
                     {"suite", f.suite},
                     {"dtype", f.dtype},
                     {"mode", f.mode},
                     {"kind", f.kind},
                     {"device", f.device},
                     {"config", f.config},
                     {"rows", f.rows},
                     {"slow", f.slow},
                     {"failed", f.failed},
                     {"accuracy_failed", f.accuracy_failed},
                     {"duplicates_dropped", f.duplicates_dropped},
                     {"expectations", f.expectations},
                     {"invalid", f.invalid},
                     {"status", to_string(f.status)},
                     {"warnings", warnings_json(f, false)}});
    for (auto& w : warnings_json(f, true)) warnings.push_back(std::move(w));
  }
  return {{"run", summary.run}, {"files", files}, {"errors", json::array()}, {"warnings", warnings}};
}

}  // namespace perftriage::server
