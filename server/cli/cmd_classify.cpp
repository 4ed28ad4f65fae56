// perftriage classify [--json] FILE...  |  perftriage classify --base A --target B [--json]
// No database: each file is classified on its own (analyzers/trace/classify.hpp).
#include <ostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzers/trace/classify.hpp"
#include <memory>

#include "server/cli/commands.hpp"

namespace perftriage::cli {

namespace {

namespace tr = perftriage::analyzers::trace;

// A refused file, in classify's own words (the other files go on): exit code 1.
int print_refusal(std::ostream& err, const Error& e, const std::string& path) {
  err << "classify: " << (e.file.empty() ? path : e.file) << ": refused (" << e.code << "): " << e.message << "\n";
  return 1;
}

void print_text(std::ostream& out, const nlohmann::json& r) {
  out << r.value("file", "") << ": " << r.value("kind", "") << "\n";
  if (r.contains("census")) {
    const auto& c = r["census"];
    out << fmt::format("  census: {} device kernels, {:.0f} us device time, busy {:.3f}\n",
                       c.value("device_kernels", std::int64_t{0}), c.value("kernel_time_us", 0.0),
                       c.value("busy_fraction", 0.0));
    out << "    " << c.value("evidence", "") << "\n";
  }
  for (const auto& f : r["findings"]) {
    out << fmt::format("  {:<13} {:<14} {}\n", f.value("classifier", ""), f.value("verdict", ""),
                       f.value("evidence", ""));
  }
  if (r.contains("summary")) {
    const auto& s = r["summary"];
    out << "  summary: " << s.value("verdict", "");
    if (s.contains("causes"))
      out << " (" << fmt::format("{}", fmt::join(s["causes"].get<std::vector<std::string>>(), ", ")) << ")";
    out << "\n";
  }
}

void print_diff_text(std::ostream& out, const nlohmann::json& d) {
  out << d.value("base", "") << " -> " << d.value("target", "") << "\n";
  out << "  " << d.value("evidence", "") << "\n";
  out << fmt::format("  device kernels: {} -> {}\n", d["device_kernels"].value("base", std::int64_t{0}),
                     d["device_kernels"].value("target", std::int64_t{0}));
  for (const auto& v : d["verdicts"]) {
    out << fmt::format("  {:<13} {} -> {}{}\n", v.value("classifier", ""), v.value("base", ""), v.value("target", ""),
                       v.value("changed", false) ? "  (changed)" : "");
  }
}

struct ClassifyOptions {
  std::string base, target;
  std::vector<std::string> files;
  bool json = false;
};

Result<int> classify_diff(const ClassifyOptions& o, Io io) {
  const tr::ClassifyOptions options;
  auto base = tr::classify_file(o.base, options);
  if (!base) return print_refusal(io.err, base.error(), o.base);
  auto target = tr::classify_file(o.target, options);
  if (!target) return print_refusal(io.err, target.error(), o.target);
  auto d = tr::diff(*base, *target);
  if (!d) return print_refusal(io.err, d.error(), o.base);
  if (o.json) {
    nlohmann::json out = *d;
    out["base_result"] = *base;
    out["target_result"] = *target;
    io.out << out.dump(2) << "\n";
  } else {
    print_diff_text(io.out, *d);
  }
  return 0;
}

// Every file, even after one is refused (exit 1 then); one JSON document for one file, an array for several.
Result<int> classify_files(const ClassifyOptions& o, Io io) {
  const tr::ClassifyOptions options;
  int rc = 0;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& path : o.files) {
    auto r = tr::classify_file(path, options);
    if (!r) {
      rc = print_refusal(io.err, r.error(), path);
      continue;
    }
    if (o.json) {
      all.push_back(std::move(*r));
    } else {
      print_text(io.out, *r);
    }
  }
  if (o.json && o.files.size() == 1 && !all.empty()) io.out << all[0].dump(2) << "\n";
  if (o.json && o.files.size() > 1) io.out << all.dump(2) << "\n";
  return rc;
}

}  // namespace

void add_classify(const Command& cmd) {
  auto o = std::make_shared<ClassifyOptions>();
  CLI::App& app = *cmd.app;
  app.add_option("files", o->files, "traces (Kineto JSON, .gz), compile logs, tlparse output");
  app.add_option("--base", o->base, "with --target: compare the classifications of two files");
  app.add_option("--target", o->target, "with --base");
  app.add_flag("--json", o->json, "as JSON");
  cmd.on_run([o, io = cmd.io]() -> Action {
    if (!o->base.empty() || !o->target.empty()) {
      if (o->base.empty() || o->target.empty() || !o->files.empty()) {
        usage_error("base", "--base and --target go together, without other files");
      }
      return [o, io] { return classify_diff(*o, io); };
    }
    if (o->files.empty()) usage_error("", "give FILE... or --base A --target B");
    return [o, io] { return classify_files(*o, io); };
  });
}

}  // namespace perftriage::cli
