#include "schema/store.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>

#include "common/json_text.hpp"
#include "common/strings.hpp"
#include "schema/backlog_store.hpp"
#include "schema/blob_codec.hpp"
#include "schema/migrate.hpp"
#include "schema/result_writer_backends.hpp"
#include "schema/run_selection.hpp"

namespace perftriage::schema {
namespace {

using nlohmann::json;

constexpr std::string_view kSelectRunColumns =
    "SELECT id, key, platform, device, torch_version, commit_sha, created_at, tags, environment FROM runs ";
constexpr std::string_view kInsertRun =
    "INSERT INTO runs(key, platform, device, torch_version, commit_sha, created_at, tags, environment) "
    "VALUES($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id";
constexpr std::string_view kUpdateRun =
    "UPDATE runs SET device = $2, torch_version = $3, commit_sha = $4, tags = $5, environment = $6 WHERE id = $1";
constexpr std::string_view kSelectFileColumns =
    "SELECT id, run_id, path, format, suite, dtype, mode, kind, device, config, sha256, size, row_count, "
    "duplicates_dropped, uploaded_at, raw_kept = 0 FROM result_files ";
constexpr std::string_view kInsertFile =
    "INSERT INTO result_files(run_id, path, format, suite, dtype, mode, kind, device, config, sha256, size, "
    "header, row_count, duplicates_dropped, uploaded_at) "
    "VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id";
constexpr std::string_view kInsertFileBlob = "INSERT INTO file_blobs(file_id, raw_deflate) VALUES($1, $2)";
constexpr std::string_view kSupersede = "UPDATE result_files SET superseded_by = $2 WHERE id = $1";
// Step one of a replacement: the old file points at itself, which takes it out of the live-path index.
constexpr std::string_view kRetire = "UPDATE result_files SET superseded_by = id WHERE id = $1";
constexpr std::string_view kDeleteFileRows =
    "DELETE FROM result_rows WHERE run_id = (SELECT run_id FROM result_files WHERE id = $1) AND file_id = $1";
constexpr std::string_view kDeleteFileExpectations = "DELETE FROM expectations WHERE file_id = $1";
// A file's group (suite, dtype, mode, kind, config), read once per file; a new group is inserted.
constexpr std::string_view kFindGroup =
    "SELECT id FROM case_groups WHERE suite = $1 AND dtype = $2 AND mode = $3 AND kind = $4 AND config = $5";
constexpr std::string_view kInsertGroup =
    "INSERT INTO case_groups(suite, dtype, mode, kind, config) VALUES($1, $2, $3, $4, $5) RETURNING id";
constexpr std::string_view kInsertExpectation =
    "INSERT INTO expectations(run_id, file_id, suite, mode, dtype, config, model, line, accuracy, graph_breaks, "
    "speedup_target) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
constexpr std::string_view kSelectResultColumns =
    "SELECT r.key, r.platform, f.path, x.suite, x.dtype, x.mode, x.kind, x.config, x.model, x.line, x.dev, "
    "x.batch_size, x.speedup, x.speedup_text, x.abs_latency_ms, x.eager_latency_ms, x.compilation_latency_s, "
    "x.compression_ratio, x.eager_peak_mem_gb, x.dynamo_peak_mem_gb, x.calls_captured, x.unique_graphs, "
    "x.graph_breaks, x.unique_graph_breaks, x.autograd_captures, x.autograd_compiles, x.cudagraph_skips, "
    "x.fallbacks_to_eager, x.accuracy, x.short_row, x.failed, x.accuracy_failed, x.unreliable, x.deviates, "
    "x.expected_accuracy, x.extra, x.invalid "
    "FROM results x JOIN runs r ON r.id = x.run_id JOIN result_files f ON f.id = x.file_id ";
constexpr std::string_view kRunCounts =
    "SELECT (SELECT count(*) FROM result_files WHERE run_id = $1 AND superseded_by IS NULL), count(*),"
    " sum(CASE WHEN kind = 'performance' AND speedup > 0 AND speedup < $2 THEN 1 ELSE 0 END), coalesce(sum(failed), 0),"
    " coalesce(sum(accuracy_failed), 0), coalesce(sum(unreliable), 0), coalesce(sum(deviates), 0),"
    " coalesce(sum(invalid), 0) "
    "FROM results WHERE run_id = $1";
// The same from the run's summaries (migration 010), for the default threshold (1.0) they were counted at.
constexpr std::string_view kRunCountsSummary =
    "SELECT (SELECT count(*) FROM result_files WHERE run_id = $1 AND superseded_by IS NULL), coalesce(sum(rows), 0),"
    " coalesce(sum(slow), 0), coalesce(sum(failed), 0), coalesce(sum(accuracy_failed), 0),"
    " coalesce(sum(unreliable), 0), coalesce(sum(deviates), 0), coalesce(sum(invalid), 0) "
    "FROM run_groups WHERE run_id = $1";
// A platform's runs newest first, along runs_platform_created (runs_created for "" = every platform); a condition of
// run_selection.hpp may stand between the WHERE and the order.
constexpr std::string_view kRunsOfPlatform = "WHERE platform = $1 ";
constexpr std::string_view kRunsOfAnyPlatform = "WHERE ($1 = '' OR platform = $1) ";
constexpr std::string_view kNewestFirst = "ORDER BY created_at DESC, id DESC";
constexpr std::string_view kHasPerformanceResults =
    "SELECT EXISTS (SELECT 1 FROM runs WHERE id = $1 AND " PT_RUN_HAS_PERFORMANCE ")";
constexpr std::string_view kPlatformExact = "SELECT platform FROM runs WHERE platform = $1 LIMIT 1";
// The first run's spelling: databases written before platforms were case-insensitive may hold several (migration 009
// unified them, this keeps the rule where it matters anyway).
constexpr std::string_view kPlatformAnyCase =
    "SELECT platform FROM runs WHERE platform = $1 COLLATE NOCASE ORDER BY id LIMIT 1";
constexpr std::string_view kPreviousRun =
    "WHERE platform = $1 AND (created_at < $2 OR (created_at = $2 AND id < $3)) ORDER BY created_at DESC, id DESC "
    "LIMIT 1";
// Groups (suite, dtype, mode, kind, config) the run has rows for; a case of the previous run in such a group without a
// row now is missing. The run's case ids are collected once, so each row of the previous run costs two lookups.
constexpr std::string_view kMissingVsPrevious =
    "WITH cur AS MATERIALIZED (SELECT DISTINCT case_id FROM result_rows WHERE run_id = $1), "
    "groups AS MATERIALIZED (SELECT DISTINCT c.suite, c.dtype, c.mode, c.kind, c.config FROM cur"
    " JOIN cases c ON c.id = cur.case_id) "
    "SELECT DISTINCT c.suite, c.dtype, c.mode, c.kind, c.config, c.model FROM result_rows p"
    " JOIN cases c ON c.id = p.case_id WHERE p.run_id = $2 AND p.case_id NOT IN (SELECT case_id FROM cur)"
    " AND (c.suite, c.dtype, c.mode, c.kind, c.config) IN (SELECT suite, dtype, mode, kind, config FROM groups) "
    "ORDER BY 1, 2, 3, 4, 6";
constexpr std::string_view kMissingVsReference =
    "WITH groups AS (SELECT DISTINCT suite, dtype, mode, kind, config FROM results WHERE run_id = $1 AND "
    " kind = 'accuracy') "
    "SELECT DISTINCT g.suite, g.dtype, g.mode, g.kind, g.config, e.model, f.path FROM expectations e "
    "JOIN groups g ON g.suite = e.suite AND g.mode = e.mode AND (e.dtype = g.dtype OR e.dtype = '') "
    "JOIN result_files f ON f.id = e.file_id "
    "WHERE e.run_id = $1 AND e.accuracy <> '' AND NOT EXISTS (SELECT 1 FROM results c WHERE c.run_id = $1 "
    " AND c.suite = g.suite AND c.dtype = g.dtype AND c.mode = g.mode AND c.kind = g.kind AND c.model = e.model) "
    "ORDER BY g.suite, g.dtype, g.mode, e.model";

model::RunRecord read_run(const Statement& st) {
  model::RunRecord r;
  r.id = st.int64(0);
  r.meta.key = st.text(1);
  r.meta.platform = st.text(2);
  r.meta.device = st.text(3);
  r.meta.torch_version = st.text(4);
  r.meta.commit = st.text(5);
  r.meta.created_at = st.text(6);
  const auto tags = json::parse(st.text_view(7), nullptr, false);
  if (tags.is_array()) {
    for (const auto& t : tags) {
      if (t.is_string()) r.meta.tags.push_back(t.get<std::string>());
    }
  }
  r.meta.environment_json = st.text(8);
  return r;
}

model::FileRecord read_file(const Statement& st) {
  model::FileRecord f;
  f.id = st.int64(0);
  f.run_id = st.int64(1);
  f.path = st.text(2);
  f.format = st.text(3);
  f.axes = {st.text(4), st.text(5), st.text(6), st.text(7), st.text(8), st.text(9)};
  f.sha256 = st.text(10);
  f.size = st.int64(11);
  f.row_count = st.int64(12);
  f.duplicates_dropped = st.int64(13);
  f.uploaded_at = st.text(14);
  f.raw_dropped = st.int64(15) != 0;
  return f;
}

model::ResultRecord read_result(const Statement& st) {
  model::ResultRecord r;
  int c = 0;
  r.run_key = st.text(c++);
  r.platform = st.text(c++);
  r.source = st.text(c++);
  r.suite = st.text(c++);
  r.dtype = st.text(c++);
  r.mode = st.text(c++);
  r.kind = st.text(c++);
  r.config = st.text(c++);
  r.model = st.text(c++);
  r.line = st.int64(c++);
  r.dev = st.text(c++);
  r.batch_size = st.int64(c++);
  r.speedup = st.opt_real(c++);
  r.speedup_text = st.text(c++);
  for (auto* field : {&r.abs_latency_ms, &r.eager_latency_ms, &r.compilation_latency_s, &r.compression_ratio,
                      &r.eager_peak_mem_gb, &r.dynamo_peak_mem_gb}) {
    *field = st.opt_real(c++);
  }
  for (auto* field : {&r.calls_captured, &r.unique_graphs, &r.graph_breaks, &r.unique_graph_breaks,
                      &r.autograd_captures, &r.autograd_compiles, &r.cudagraph_skips, &r.fallbacks_to_eager}) {
    *field = st.opt_int64(c++);
  }
  r.accuracy = st.text(c++);
  r.short_row = st.int64(c++) != 0;
  r.failed = st.int64(c++) != 0;
  r.accuracy_failed = st.int64(c++) != 0;
  r.unreliable = st.int64(c++) != 0;
  r.deviates = st.int64(c++) != 0;
  if (!st.is_null(c)) r.expected_accuracy = st.text(c);
  ++c;
  r.extra_json = st.text(c++);
  r.invalid = st.int64(c++) != 0;
  return r;
}

std::string merge_tags(const std::vector<std::string>& old_tags, const std::vector<std::string>& new_tags) {
  json out = json::array();
  auto add = [&](const std::string& t) {
    if (!t.empty() && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  for (const auto& t : old_tags) add(t);
  for (const auto& t : new_tags) add(t);
  return out.dump();
}

std::string merge_environment(const std::string& old_json, const std::string& new_json) {
  json merged = json::parse(old_json, nullptr, false);
  if (!merged.is_object()) merged = json::object();
  const json incoming = json::parse(new_json, nullptr, false);
  if (incoming.is_object()) merged.update(incoming);
  return merged.dump();
}

}  // namespace

std::string iso8601_utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string now_iso8601() {
  return iso8601_utc(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
}

Result<Store> Store::open(const std::string& path) {
  PT_ASSIGN(auto db, Database::open(path));
  PT_TRY(migrate(db));
  PT_TRY(rebuild_backlog_if_pending(db));
  return Store(std::move(db));
}

Result<std::string> stored_platform(Database& db, const std::string& platform) {
  if (platform.empty()) return platform;
  // Exact first: it is the stored spelling whenever the caller wrote it so, and it goes through runs_platform_created.
  for (auto sql : {kPlatformExact, kPlatformAnyCase}) {
    PT_ASSIGN(auto st, Statement::prepare(db, sql));
    st.bind(1, platform);
    PT_ASSIGN(auto found, first(st, [](const Statement& s) { return s.text(0); }));
    if (found) return std::move(*found);
  }
  return platform;
}

Result<std::int64_t> ensure_run(Database& db, const model::RunMeta& meta) {
  PT_ASSIGN(const auto existing, find_run(db, meta.key));
  if (!existing) {
    PT_ASSIGN(const std::string platform, stored_platform(db, meta.platform));
    PT_ASSIGN(auto st, Statement::prepare(db, kInsertRun));
    st.bind(1, meta.key).bind(2, platform).bind(3, meta.device).bind(4, meta.torch_version);
    st.bind(5, meta.commit).bind(6, meta.created_at.empty() ? now_iso8601() : meta.created_at);
    st.bind(7, merge_tags({}, meta.tags)).bind(8, merge_environment("{}", meta.environment_json));
    return scalar(st);
  }
  const model::RunRecord& run = *existing;
  if (!iequals(run.meta.platform, meta.platform)) {  // ASCII case-insensitive, as COLLATE NOCASE
    return make_error(ErrorKind::conflict, "run_platform_mismatch",
                      "run '" + meta.key + "' belongs to platform " + run.meta.platform + ", not " + meta.platform);
  }
  auto pick = [](const std::string& old_value, const std::string& new_value) {
    return new_value.empty() ? old_value : new_value;
  };
  PT_ASSIGN(auto st, Statement::prepare(db, kUpdateRun));
  st.bind(1, run.id).bind(2, pick(run.meta.device, meta.device));
  st.bind(3, pick(run.meta.torch_version, meta.torch_version)).bind(4, pick(run.meta.commit, meta.commit));
  st.bind(5, merge_tags(run.meta.tags, meta.tags));
  st.bind(6, merge_environment(run.meta.environment_json, meta.environment_json));
  PT_TRY(st.run());
  return run.id;
}

Result<std::optional<model::FileRecord>> live_file(Database& db, std::int64_t run_id, std::string_view path) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectFileColumns) +
                                                "WHERE run_id = $1 AND path = $2 AND superseded_by IS NULL"));
  st.bind(1, run_id).bind(2, path);
  return first(st, read_file);
}

Result<std::int64_t> insert_file(Database& db, std::int64_t run_id, const NewFile& file) {
  PT_ASSIGN(auto st, Statement::prepare(db, kInsertFile));
  st.bind(1, run_id).bind(2, file.path).bind(3, file.format).bind(4, file.axes.suite).bind(5, file.axes.dtype);
  st.bind(6, file.axes.mode).bind(7, file.axes.kind).bind(8, file.axes.device).bind(9, file.axes.config);
  st.bind(10, file.sha256).bind(11, static_cast<std::int64_t>(file.bytes.size()));
  // bound without a copy: a file's compressed bytes are tens of MB for a large upload
  const std::string compressed = file.compressed.empty() ? compress_file_bytes(file.bytes) : std::string();
  st.bind(12, file.header).bind(13, file.row_count);
  st.bind(14, file.duplicates_dropped).bind(15, now_iso8601());
  PT_ASSIGN(const std::int64_t file_id, scalar(st));
  PT_ASSIGN(auto blob, Statement::prepare(db, kInsertFileBlob));
  blob.bind(1, file_id);
  blob.bind_blob_static(2, file.compressed.empty() ? std::string_view(compressed) : std::string_view(file.compressed));
  PT_TRY(blob.run());
  return file_id;
}

Result<std::int64_t> replace_file(Database& db, std::int64_t run_id, std::int64_t old_id, const NewFile& file) {
  for (auto sql : {kDeleteFileRows, kDeleteFileExpectations, kRetire}) {
    PT_ASSIGN(auto st, Statement::prepare(db, sql));
    st.bind(1, old_id);
    PT_TRY(st.run());
  }
  PT_ASSIGN(const std::int64_t new_id, insert_file(db, run_id, file));
  PT_ASSIGN(auto st, Statement::prepare(db, kSupersede));
  st.bind(1, old_id).bind(2, new_id);
  PT_TRY(st.run());
  return new_id;
}

Result<std::int64_t> case_group_id(Database& db, const ingest::Axes& axes) {
  for (auto sql : {kFindGroup, kInsertGroup}) {
    PT_ASSIGN(auto st, Statement::prepare(db, sql));
    st.bind(1, axes.suite).bind(2, axes.dtype).bind(3, axes.mode).bind(4, axes.kind).bind(5, axes.config);
    if (sql == kInsertGroup) return scalar(st);
    PT_ASSIGN(auto found, first(st, [](const Statement& s) { return s.int64(0); }));
    if (found) return *found;
  }
  return make_error(ErrorKind::internal, "no_group", "case group neither found nor inserted");
}

std::string extra_columns_json(const ingest::ResultRow& row) {
  if (row.extra.empty()) return {};
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [name, value] : row.extra) object[name] = value;
  return dump_json(object);
}

Result<ResultWriter> ResultWriter::open(Database& db, std::int64_t run_id, std::int64_t file_id, ingest::Axes axes) {
  PT_ASSIGN(const std::int64_t group, case_group_id(db, axes));
  const ResultTarget target{run_id, file_id, group};
  PT_ASSIGN(auto backend, db.dialect() == Dialect::postgres ? open_postgres_result_writer(db, target)
                                                            : open_sqlite_result_writer(db, target));
  return ResultWriter(std::move(backend));
}

Result<void> insert_results(Database& db, std::int64_t run_id, std::int64_t file_id, const ingest::Axes& axes,
                            const std::vector<ingest::ResultRow>& rows, const std::vector<model::RowFlags>& flags) {
  PT_ASSIGN(auto writer, ResultWriter::open(db, run_id, file_id, axes));
  for (std::size_t i = 0; i < rows.size(); ++i)
    PT_TRY(writer.add(rows[i], i < flags.size() ? flags[i] : model::RowFlags{}));
  PT_TRY(writer.finish());
  return refresh_run_summary(db, run_id);
}

Result<void> insert_expectations(Database& db, std::int64_t run_id, std::int64_t file_id,
                                 const std::vector<ingest::Expectation>& rows) {
  PT_ASSIGN(auto st, Statement::prepare(db, kInsertExpectation));
  for (const auto& e : rows) {
    st.reset();
    st.bind(1, run_id).bind(2, file_id).bind(3, e.suite).bind(4, e.mode).bind(5, e.dtype).bind(6, e.config);
    st.bind(7, e.model).bind(8, e.line).bind(9, e.accuracy).bind(10, e.graph_breaks).bind(11, e.speedup_target);
    PT_TRY(st.run());
  }
  return {};
}

Result<std::vector<model::RunRecord>> list_runs(Database& db, const std::string& platform, RunsWith with) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectRunColumns) + std::string(kRunsOfAnyPlatform) +
                                                std::string(runs_with_condition(with)) + std::string(kNewestFirst)));
  st.bind(1, stored);
  return collect<model::RunRecord>(st, read_run);
}

Result<RunPage> list_runs_page(Database& db, const std::string& platform, std::int64_t limit,
                               const std::string& cursor) {
  std::string after_created;
  std::int64_t after_id = 0;
  if (!cursor.empty()) {
    const auto bar = cursor.rfind('~');
    std::size_t used = 0;
    try {
      if (bar != std::string::npos) after_id = std::stoll(cursor.substr(bar + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (bar == std::string::npos || bar == 0 || used == 0 || bar + 1 + used != cursor.size()) {
      return make_error(ErrorKind::invalid_input, "invalid_cursor",
                        "cursor '" + cursor + "' is not one this server gave (next_cursor of a page of runs)", {}, 0,
                        "cursor");
    }
    after_created = cursor.substr(0, bar);
  }
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  if (cursor.empty()) {  // before every run: above any ISO-8601 time, and the largest id
    after_created = "\x7f";
    after_id = std::numeric_limits<std::int64_t>::max();
  }
  // A row-value bound is a range of runs_platform_created (or runs_created across platforms), read newest first.
  const std::string where = stored.empty() ? "WHERE $1 = '' AND " : "WHERE platform = $1 AND ";
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectRunColumns) + where +
                                                "(created_at, id) < ($2, $3) ORDER BY created_at DESC, id DESC "
                                                "LIMIT $4"));
  st.bind(1, stored).bind(2, after_created).bind(3, after_id).bind(4, sql_limit(limit > 0 ? limit + 1 : -1));
  RunPage page;
  PT_ASSIGN(page.runs, collect<model::RunRecord>(st, read_run));
  if (limit > 0 && static_cast<std::int64_t>(page.runs.size()) > limit) {
    page.runs.pop_back();
    const auto& last = page.runs.back();
    page.next_cursor = last.meta.created_at + "~" + std::to_string(last.id);
  }
  return page;
}

Result<std::optional<model::RunRecord>> find_run(Database& db, const std::string& key) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectRunColumns) + "WHERE key = $1"));
  st.bind(1, key);
  return first(st, read_run);
}

Result<std::optional<model::RunRecord>> latest_run(Database& db, const std::string& platform, RunsWith with) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectRunColumns) + std::string(kRunsOfPlatform) +
                                                std::string(runs_with_condition(with)) + std::string(kNewestFirst) +
                                                " LIMIT 1"));
  st.bind(1, stored);
  return first(st, read_run);
}

Result<bool> has_performance_results(Database& db, std::int64_t run_id) {
  PT_ASSIGN(auto st, Statement::prepare(db, kHasPerformanceResults));
  st.bind(1, run_id);
  PT_ASSIGN(const std::int64_t found, scalar(st));
  return found != 0;
}

Result<std::optional<model::RunRecord>> previous_run(Database& db, const model::RunRecord& run) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectRunColumns) + std::string(kPreviousRun)));
  st.bind(1, run.meta.platform).bind(2, run.meta.created_at).bind(3, run.id);
  return first(st, read_run);
}

Result<std::int64_t> count_runs(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, "SELECT count(*) FROM runs"));
  return scalar(st);
}

Result<std::vector<model::FileRecord>> run_files(Database& db, std::int64_t run_id) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectFileColumns) +
                                                "WHERE run_id = $1 AND superseded_by IS NULL ORDER BY path"));
  st.bind(1, run_id);
  return collect<model::FileRecord>(st, read_file);
}

Result<std::string> file_bytes(Database& db, std::int64_t file_id) {
  PT_ASSIGN(auto st, Statement::prepare(db,
                                        "SELECT b.raw_deflate, f.size, b.file_id IS NULL FROM result_files f"
                                        " LEFT JOIN file_blobs b ON b.file_id = f.id WHERE f.id = $1"));
  st.bind(1, file_id);
  PT_ASSIGN(const bool row, st.step());
  if (!row) return make_error(ErrorKind::not_found, "no_file", "no stored file " + std::to_string(file_id));
  if (st.int64(2) != 0) {
    return make_error(
        ErrorKind::not_found, "raw_dropped",
        "the raw bytes of file " + std::to_string(file_id) + " were dropped by retention (raw_files_days)");
  }
  return inflate_bytes(st.blob(0), static_cast<std::size_t>(st.int64(1)));
}

Result<model::RunCounts> run_counts(Database& db, std::int64_t run_id, double threshold) {
  const bool summarized = threshold == 1.0;
  PT_ASSIGN(auto st, Statement::prepare(db, summarized ? kRunCountsSummary : kRunCounts));
  st.bind(1, run_id);
  if (!summarized) st.bind(2, threshold);
  PT_TRY(st.step());
  return model::RunCounts{st.int64(0), st.int64(1), st.int64(2), st.int64(3),
                          st.int64(4), st.int64(5), st.int64(6), st.int64(7)};
}

Result<std::vector<model::ResultRecord>> results(Database& db, const ResultFilter& filter) {
  std::string sql(kSelectResultColumns);
  sql += "WHERE 1 = 1";
  if (!filter.run_ids.empty()) {
    sql += " AND x.run_id IN (";
    for (std::size_t i = 0; i < filter.run_ids.size(); ++i) sql += (i ? "," : "") + std::to_string(filter.run_ids[i]);
    sql += ")";
  }
  // Fixed parameter slots keep the statement text independent of the values.
  sql +=
      " AND ($1 = '' OR x.suite = $1) AND ($2 = '' OR x.dtype = $2) AND ($3 = '' OR x.mode = $3)"
      " AND ($4 = '' OR x.kind = $4) AND ($5 = '' OR x.config = $5) AND ($6 = '' OR x.model = $6)";
  switch (filter.flag) {
    case ResultFlag::any: break;
    case ResultFlag::slow: sql += " AND x.kind = 'performance' AND x.speedup > 0 AND x.speedup < $7"; break;
    case ResultFlag::failed: sql += " AND x.failed = 1"; break;
    case ResultFlag::accuracy_failed: sql += " AND x.accuracy_failed = 1"; break;
    case ResultFlag::unreliable: sql += " AND x.unreliable = 1"; break;
    case ResultFlag::deviates: sql += " AND x.deviates = 1"; break;
    case ResultFlag::invalid: sql += " AND x.invalid = 1"; break;
  }
  sql += " ORDER BY r.created_at, r.id, x.suite, x.dtype, x.mode, x.kind, x.config, x.file_id, x.line";
  if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit) + " OFFSET " + std::to_string(filter.offset);
  PT_ASSIGN(auto st, Statement::prepare(db, sql));
  st.bind(1, filter.suite).bind(2, filter.dtype).bind(3, filter.mode).bind(4, filter.kind);
  st.bind(5, filter.config).bind(6, filter.model);
  if (filter.flag == ResultFlag::slow) st.bind(7, filter.threshold);
  return collect<model::ResultRecord>(st, read_result);
}

Result<std::vector<model::MissingRecord>> missing(Database& db, const model::RunRecord& run) {
  std::vector<model::MissingRecord> out;
  PT_ASSIGN(const auto previous, previous_run(db, run));
  if (previous) {
    PT_ASSIGN(auto st, Statement::prepare(db, kMissingVsPrevious));
    st.bind(1, run.id).bind(2, previous->id);
    PT_ASSIGN(out, collect<model::MissingRecord>(st, [&](const Statement& s) {
                return model::MissingRecord{s.text(0), s.text(1), s.text(2),      s.text(3),
                                            s.text(4), s.text(5), "previous_run", previous->meta.key};
              }));
  }
  PT_ASSIGN(auto st, Statement::prepare(db, kMissingVsReference));
  st.bind(1, run.id);
  PT_ASSIGN(auto rows, collect<model::MissingRecord>(st, [](const Statement& s) {
              return model::MissingRecord{s.text(0), s.text(1), s.text(2),   s.text(3),
                                          s.text(4), s.text(5), "reference", s.text(6)};
            }));
  for (auto& m : rows) {
    const bool already = std::any_of(out.begin(), out.end(), [&](const model::MissingRecord& o) {
      return o.suite == m.suite && o.dtype == m.dtype && o.mode == m.mode && o.kind == m.kind && o.model == m.model;
    });
    if (!already) out.push_back(std::move(m));
  }
  return out;
}

}  // namespace perftriage::schema
