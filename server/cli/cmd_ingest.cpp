// perftriage ingest --platform P [--run KEY] [...] PATH...: CSV files, directory trees and archives, one transaction
// for the lot (server/app/ingest_service.hpp): every file is stored, or, when one is refused, none. Then every bad
// file is reported, not only the first: each is checked on its own against an empty in-memory database.
//
// Stored paths: a file named on the command line is stored under its lexically normal path relative to the current
// directory (x.csv, ./x.csv and $PWD/x.csv are one file; outside the current directory the absolute path); a file
// found under a directory is named relative to it, so that the layout (huggingface/bfloat16/inference/...) is what
// gets stored and parsed. Explicit axes (--suite, --dtype, --mode, ...) label the result files; the reference files
// found in a directory keep their own.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include "common/error_json.hpp"
#include "common/strings.hpp"
#include "ingest/benchmark_csv.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/queries.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct IngestOptions {
  std::string db, platform, run, device, torch_version, commit, created_at, suite, dtype, mode, kind, config, meta;
  std::vector<std::string> tags, env, paths;
  double threshold = 1.0;
  bool json = false, replace = false;
};

// Trees of more files than this show their progress on a terminal.
constexpr std::size_t kProgressFiles = 20;

bool wanted_in_tree(const fs::path& p) {
  const std::string name = p.filename().string();
  for (const char* suffix : {".csv", ".zip", ".tar.gz", ".tgz", ".tar", ".csv.gz"}) {
    if (iends_with(name, suffix)) return true;
  }
  return false;
}

// x.csv, ./x.csv and $PWD/x.csv -> "x.csv"; a path outside the current directory -> its absolute normal form.
std::string stored_path(const fs::path& given) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  const fs::path absolute = (given.is_absolute() ? given : cwd / given).lexically_normal();
  const fs::path relative = absolute.lexically_relative(cwd);
  if (!ec && !relative.empty() && *relative.begin() != "..") return relative.generic_string();
  return absolute.generic_string();
}

// What a tree or a file contributes: its path on disk and the path it is stored under.
struct Found {
  fs::path disk;
  std::string stored;
  bool in_directory = false;
};

Result<std::vector<Found>> find_inputs(const std::vector<std::string>& paths) {
  std::vector<Found> out;
  std::set<std::string> seen;
  auto add = [&](Found f) {
    if (seen.insert(f.stored).second) out.push_back(std::move(f));  // the same file named twice is one file
  };
  for (const auto& arg : paths) {
    std::error_code ec;
    fs::path root = fs::path(arg).lexically_normal();
    if (root.filename().empty() && root.has_parent_path()) root = root.parent_path();  // "dir/" -> "dir"
    if (fs::is_directory(root, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_regular_file() && wanted_in_tree(it->path())) found.push_back(it->path());
      }
      if (ec) return make_error(ErrorKind::invalid_input, "unreadable", "cannot walk directory: " + ec.message(), arg);
      if (found.empty()) {
        return make_error(ErrorKind::invalid_input, "no_csv", "directory holds no .csv file or archive", arg);
      }
      std::sort(found.begin(), found.end());
      for (const auto& f : found) add({f, f.lexically_normal().lexically_relative(root).generic_string(), true});
    } else if (fs::exists(root, ec)) {
      add({root, stored_path(root), false});
    } else {
      return make_error(ErrorKind::invalid_input, "no_such_file", "no such file or directory", arg);
    }
  }
  return out;
}

// Reads every file, showing "reading files: i/n" on a terminal for trees of many files.
Result<std::vector<ingest::InputFile>> read_inputs(const std::vector<Found>& found, bool progress, Io io) {
  std::vector<ingest::InputFile> out;
  out.reserve(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    PT_ASSIGN(auto bytes, read_input_file(found[i].disk.string()));
    out.push_back({found[i].stored, std::move(bytes)});
    if (progress && (i + 1 == found.size() || i % 10 == 0)) {
      io.out << "\rperftriage: reading files: " << i + 1 << "/" << found.size() << std::flush;
    }
  }
  if (progress) io.out << "\rperftriage: parsing and storing " << found.size() << " files...\n" << std::flush;
  return out;
}

// The reference files found in a directory keep their own axes: the explicit ones label the result files.
std::set<std::string> own_axes(const std::vector<Found>& found, const std::vector<ingest::InputFile>& files) {
  std::set<std::string> out;
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i].in_directory && ingest::sniff_csv(files[i].data()) == ingest::CsvFlavor::reference) {
      out.insert(files[i].path);
    }
  }
  return out;
}

// After a refused upload: each other file on its own against an empty in-memory database, so that every bad file is
// reported (in upload order, the first refusal first). Nothing of the upload was stored.
std::vector<Error> every_error(const server::UploadMeta& meta, const std::vector<std::string>& paths,
                               const Error& first) {
  std::vector<Error> out{first};
  if (first.file.empty()) return out;  // not about a file (a missing platform, a database error)
  auto found = find_inputs(paths);
  auto scratch = schema::Store::open(":memory:");
  if (!found || found->size() < 2 || !scratch) return out;
  server::UploadMeta alone = meta;
  alone.run = "check";
  alone.replace = true;
  for (const auto& f : *found) {
    if (f.stored == first.file) continue;
    auto bytes = read_input_file(f.disk.string());
    if (!bytes) {
      out.push_back(bytes.error());
      continue;
    }
    auto checked = server::ingest_files(*scratch, alone, {{f.stored, std::move(*bytes)}});
    if (!checked && !checked.error().file.empty()) out.push_back(checked.error());
  }
  return out;
}

Result<server::UploadMeta> upload_meta(const IngestOptions& o) {
  server::UploadMeta meta;
  meta.run = o.run;
  meta.platform = o.platform;
  meta.device = o.device;
  meta.torch_version = o.torch_version;
  meta.commit = o.commit;
  meta.created_at = o.created_at;
  meta.axes = {o.suite, o.dtype, o.mode, o.kind, o.device, o.config};
  meta.tags = o.tags;
  meta.replace = o.replace;
  json env = json::object();
  for (const auto& kv : o.env) {
    const auto eq = kv.find('=');
    env[kv.substr(0, eq)] = kv.substr(eq + 1);  // checked by the option's validator: KEY=VALUE
  }
  meta.environment_json = env.dump();
  if (!o.meta.empty()) PT_TRY(server::merge_meta_json(meta, o.meta));
  meta.threshold = o.threshold;
  return meta;
}

void print_summary(const server::IngestSummary& summary, Io io) {
  std::int64_t rows = 0, slow = 0, failed = 0, accuracy_failed = 0;
  std::map<std::string, int> by_status;
  io.out << "run " << summary.run << "\n";
  for (const auto& f : summary.files) {
    io.out << "  " << to_string(f.status) << "  " << f.path << "  [" << f.suite << " " << f.dtype << " " << f.mode
           << " " << f.kind << "]  rows " << f.rows << ", slow " << f.slow << ", failed " << f.failed
           << ", accuracy_failed " << f.accuracy_failed;
    if (f.duplicates_dropped) io.out << ", duplicates dropped " << f.duplicates_dropped;
    if (f.expectations) io.out << ", expectations " << f.expectations;
    io.out << "\n";
    rows += f.rows;
    slow += f.slow;
    failed += f.failed;
    accuracy_failed += f.accuracy_failed;
    ++by_status[std::string(to_string(f.status))];
  }
  std::string statuses;
  for (const auto& [status, n] : by_status) statuses += ", " + std::to_string(n) + " " + status;
  io.out << "total: 1 run, " << summary.files.size() << " file" << (summary.files.size() == 1 ? "" : "s") << statuses
         << "; " << rows << " rows, " << slow << " slow, " << failed << " failed, " << accuracy_failed
         << " accuracy_failed\n";
}

Result<server::IngestSummary> ingest(const IngestOptions& o, const server::UploadMeta& meta_in, Io io) {
  server::UploadMeta meta = meta_in;
  PT_ASSIGN(const auto found, find_inputs(o.paths));
  const bool progress = !o.json && found.size() > kProgressFiles && &io.out == &std::cout && ::isatty(STDOUT_FILENO);
  PT_ASSIGN(auto files, read_inputs(found, progress, io));
  meta.own_axes = own_axes(found, files);
  PT_ASSIGN(auto store, open_store(o.db));
  return server::ingest_files(store, meta, std::move(files));
}

Result<int> run_ingest(const IngestOptions& o, Io io) {
  auto meta = upload_meta(o);
  auto summary = meta ? ingest(o, *meta, io) : Result<server::IngestSummary>(meta.error());
  if (summary) {
    if (o.json) {
      io.out << server::rendered_json(server::to_json(*summary)).body;
    } else {
      print_summary(*summary, io);
    }
    return 0;
  }
  const auto errors = meta ? every_error(*meta, o.paths, summary.error()) : std::vector<Error>{summary.error()};
  if (o.json) {
    json list = json::array();
    for (const auto& e : errors) list.push_back(to_json(e));
    io.out << server::rendered_json(
                  {{"run", o.run.empty() ? json() : json(o.run)}, {"files", json::array()}, {"errors", list}})
                  .body;
  }
  if (errors.size() == 1) return summary.error();
  for (const auto& e : errors) print_error(io.err, e);
  io.err << "perftriage: " << errors.size() << " files refused; nothing was stored\n";
  return 1;
}

}  // namespace

void add_ingest(const Command& cmd) {
  auto o = std::make_shared<IngestOptions>();
  CLI::App& app = *cmd.app;
  add_db_option(app, o->db);
  // The run's and the files' text options, in --help order.
  static constexpr std::array<std::tuple<const char*, std::string IngestOptions::*, const char*>, 6> kRunOptions{{
      {"--platform", &IngestOptions::platform, "the platform: BMG, PVC, A100, ... (required: the files do not say it)"},
      {"--run", &IngestOptions::run, "the run's key (default: PLATFORM-UTC timestamp); an existing run is added to"},
      {"--device", &IngestOptions::device, "the device (default: the first row's dev)"},
      {"--torch-version", &IngestOptions::torch_version, "the torch version, e.g. 2.12.0+xpu"},
      {"--commit", &IngestOptions::commit, "the commit measured"},
      {"--created-at", &IngestOptions::created_at, "when the run was made, ISO 8601 (default: now)"},
  }};
  static constexpr std::array<std::tuple<const char*, std::string IngestOptions::*, const char*>, 6> kFileOptions{{
      {"--meta", &IngestOptions::meta, "the run's metadata as JSON, like the upload's meta part"},
      {"--suite", &IngestOptions::suite, "the suite of the result files, when their path does not say it"},
      {"--dtype", &IngestOptions::dtype, "the dtype of the result files (reference files in a directory keep theirs)"},
      {"--mode", &IngestOptions::mode, "the mode of the result files (reference files in a directory keep theirs)"},
      {"--kind", &IngestOptions::kind, "performance or accuracy; must match the header"},
      {"--config", &IngestOptions::config, "the benchmark configuration, e.g. no_cudagraphs"},
  }};
  for (const auto& [name, member, help] : kRunOptions) app.add_option(name, (*o).*member, help);
  app.add_option("--tag", o->tags, "a tag of the run (repeatable): release-2.12, nightly, ...");
  app.add_option("--env", o->env, "an environment entry KEY=VALUE (repeatable)")
      ->check(CLI::Validator(
          [](std::string& kv) {
            const auto eq = kv.find('=');
            return eq == std::string::npos || eq == 0 ? "takes KEY=VALUE, got '" + kv + "'" : std::string();
          },
          "", ""))
      ->type_name("KEY=VALUE");
  for (const auto& [name, member, help] : kFileOptions) app.add_option(name, (*o).*member, help);
  add_threshold_option(app, o->threshold, "a row is slow when 0 < speedup < this");
  app.add_flag("--replace", o->replace, "replace a stored file of the same path whose bytes differ");
  app.add_flag("--json", o->json, "print the summary (or the errors) as JSON");
  app.add_option("paths", o->paths, "CSV files, directory trees, .zip / .tar(.gz) archives")->required();
  cmd.on_run([o, io = cmd.io] { return [o, io] { return run_ingest(*o, io); }; });
}

}  // namespace perftriage::cli
