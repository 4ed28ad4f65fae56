// perftriage ingest: CSV files, directory trees and archives, one transaction for the lot.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/http/http_types.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/queries.hpp"

namespace perftriage::cli {
namespace {

namespace fs = std::filesystem;

bool wanted_in_tree(const fs::path& p) {
  std::string name = p.filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".csv") || ends(".zip") || ends(".tar.gz") || ends(".tgz") || ends(".tar") || ends(".csv.gz");
}

Result<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return make_error(ErrorKind::invalid_input, "unreadable", "cannot read file", p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A file keeps the path it was given; files found under a directory are named relative to it,
// so that the layout (huggingface/bfloat16/inference/...) is what gets stored and parsed.
Result<std::vector<ingest::InputFile>> collect_inputs(const std::vector<std::string>& paths) {
  std::vector<ingest::InputFile> out;
  for (const auto& arg : paths) {
    std::error_code ec;
    const fs::path p(arg);
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_regular_file() && wanted_in_tree(it->path())) found.push_back(it->path());
      }
      if (ec) return make_error(ErrorKind::invalid_input, "unreadable", "cannot walk directory: " + ec.message(), arg);
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        return make_error(ErrorKind::invalid_input, "no_csv", "directory holds no .csv file or archive", arg);
      }
      for (const auto& f : found) {
        auto bytes = read_file(f);
        if (!bytes) return std::move(bytes).error();
        out.push_back({fs::relative(f, p).generic_string(), std::move(*bytes)});
      }
    } else if (fs::exists(p, ec)) {
      auto bytes = read_file(p);
      if (!bytes) return std::move(bytes).error();
      out.push_back({arg, std::move(*bytes)});
    } else {
      return make_error(ErrorKind::invalid_input, "no_such_file", "no such file or directory", arg);
    }
  }
  return out;
}

}  // namespace

int cmd_ingest(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv,
                         {"db", "platform", "run", "device", "torch-version", "commit", "created-at", "suite", "dtype",
                          "mode", "kind", "config", "tag", "env", "threshold", "meta"},
                         {"json", "replace"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  if (args->positionals.empty()) {
    err << "usage: perftriage ingest --platform P [--run KEY] ... PATH...\n";
    return 2;
  }
  server::UploadMeta meta;
  meta.run = args->get_or("run", "");
  meta.platform = args->get_or("platform", "");
  meta.device = args->get_or("device", "");
  meta.torch_version = args->get_or("torch-version", "");
  meta.commit = args->get_or("commit", "");
  meta.created_at = args->get_or("created-at", "");
  meta.axes = {args->get_or("suite", ""), args->get_or("dtype", ""), args->get_or("mode", ""),
               args->get_or("kind", ""),  args->get_or("device", ""), args->get_or("config", "")};
  meta.tags = args->all("tag");
  meta.replace = args->has("replace");
  nlohmann::json env = nlohmann::json::object();
  for (const auto& kv : args->all("env")) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      err << "perftriage: --env takes KEY=VALUE, got '" << kv << "'\n";
      return 2;
    }
    env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  meta.environment_json = env.dump();
  const bool json = args->has("json");

  auto report_failure = [&](const Error& e) {
    if (json) {
      out << server::dump_json({{"run", meta.run.empty() ? nlohmann::json() : nlohmann::json(meta.run)},
                                {"files", nlohmann::json::array()},
                                {"errors", nlohmann::json::array({server::to_json(e)})}})
          << "\n";
    }
    print_error(err, e);
    return 1;
  };

  if (auto meta_json = args->get("meta")) {
    if (auto r = server::merge_meta_json(meta, *meta_json); !r) return report_failure(r.error());
  }
  auto threshold = server::parse_threshold(args->get_or("threshold", ""), 1.0);
  if (!threshold) return report_failure(threshold.error());
  meta.threshold = *threshold;

  auto inputs = collect_inputs(args->positionals);
  if (!inputs) return report_failure(inputs.error());
  auto store = open_store(args->get_or("db", kDefaultDb));
  if (!store) return report_failure(store.error());
  auto summary = server::ingest_files(*store, meta, std::move(*inputs));
  if (!summary) return report_failure(summary.error());

  if (json) {
    out << server::dump_json(server::to_json(*summary)) << "\n";
    return 0;
  }
  out << "run " << summary->run << "\n";
  for (const auto& f : summary->files) {
    out << "  " << f.status << "  " << f.path << "  [" << f.suite << " " << f.dtype << " " << f.mode << " " << f.kind
        << "]  rows " << f.rows << ", slow " << f.slow << ", failed " << f.failed << ", accuracy_failed "
        << f.accuracy_failed;
    if (f.duplicates_dropped) out << ", duplicates dropped " << f.duplicates_dropped;
    if (f.expectations) out << ", expectations " << f.expectations;
    out << "\n";
  }
  return 0;
}

}  // namespace perftriage::cli
