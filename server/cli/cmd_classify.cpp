// perftriage classify [--json] FILE...  |  perftriage classify --base A --target B [--json]
#include <ostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzers/trace/classify.hpp"
#include "server/cli/args.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {

namespace {

namespace tr = perftriage::analyzers::trace;

void print_error(std::ostream& err, const Error& e, const std::string& path) {
  err << "classify: " << (e.file.empty() ? path : e.file) << ": refused (" << e.code << "): " << e.message << "\n";
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
    out << fmt::format("  {:<13} {:<14} {}\n", f.value("classifier", ""), f.value("verdict", ""), f.value("evidence", ""));
  }
  if (r.contains("summary")) {
    const auto& s = r["summary"];
    out << "  summary: " << s.value("verdict", "");
    if (s.contains("causes")) out << " (" << fmt::format("{}", fmt::join(s["causes"].get<std::vector<std::string>>(), ", ")) << ")";
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

}  // namespace

int cmd_classify(const Args& args, std::ostream& out, std::ostream& err) {
  auto parsed = parse_args(args, {"base", "target"}, {"json", "help"});
  if (!parsed) {
    err << "classify: " << parsed.error().message << "\n";
    return 2;
  }
  const ParsedArgs& a = *parsed;
  if (a.has("help")) {
    out << "usage: perftriage classify [--json] FILE...\n"
           "       perftriage classify --base A --target B [--json]\n";
    return 0;
  }
  const bool json = a.has("json");
  const tr::ClassifyOptions options;

  if (a.has("base") || a.has("target")) {
    const auto base_path = a.get("base");
    const auto target_path = a.get("target");
    if (!base_path || !target_path || !a.positionals.empty()) {
      err << "classify: --base and --target go together, without other files\n";
      return 2;
    }
    auto base = tr::classify_file(*base_path, options);
    if (!base) {
      print_error(err, base.error(), *base_path);
      return 1;
    }
    auto target = tr::classify_file(*target_path, options);
    if (!target) {
      print_error(err, target.error(), *target_path);
      return 1;
    }
    auto d = tr::diff(*base, *target);
    if (!d) {
      print_error(err, d.error(), *base_path);
      return 1;
    }
    if (json) {
      nlohmann::json o = *d;
      o["base_result"] = *base;
      o["target_result"] = *target;
      out << o.dump(2) << "\n";
    } else {
      print_diff_text(out, *d);
    }
    return 0;
  }

  if (a.positionals.empty()) {
    err << "usage: perftriage classify [--json] FILE...  |  classify --base A --target B\n";
    return 2;
  }
  int rc = 0;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& path : a.positionals) {
    auto r = tr::classify_file(path, options);
    if (!r) {
      print_error(err, r.error(), path);
      rc = 1;
      continue;
    }
    if (json) {
      all.push_back(std::move(*r));
    } else {
      print_text(out, *r);
    }
  }
  if (json) {
    if (a.positionals.size() == 1) {
      if (!all.empty()) out << all[0].dump(2) << "\n";
    } else {
      out << all.dump(2) << "\n";
    }
  }
  return rc;
}

}  // namespace perftriage::cli
