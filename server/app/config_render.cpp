// What is printed from the table (server/app/config.hpp): `perftriage config show` as JSON or TOML, and
// `perftriage config keys` (docs/config.md holds its output).
#include "server/app/config.hpp"

#include <cmath>
#include <variant>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "server/app/config_internal.hpp"

namespace perftriage::server::config {
namespace {

using namespace detail;  // the helpers the parts share (config_internal.hpp)

std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.1f}", v);
  return fmt::format("{}", v);
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

nlohmann::json to_json(const Value& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

}  // namespace

nlohmann::json effective_settings(const Settings& settings) {
  nlohmann::json out = nlohmann::json::object();
  out["config_file"] = settings.config_file;
  for (auto s : sections()) out[std::string(s)] = nlohmann::json::object();
  for (const auto& o : options()) out[std::string(o.section)][std::string(o.key)] = to_json(o.get(settings));
  out["github"]["token"] = settings.github.token.empty() ? "" : "***";
  out["github"]["webhook_secret"] = settings.github.webhook_secret.empty() ? "" : "***";
  return out;
}

std::string toml_literal(const Value& value) {
  struct Visitor {
    std::string operator()(const std::string& s) const { return toml_string(s); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_number(d); }
    std::string operator()(const std::vector<std::string>& l) const {
      std::string out = "[";
      for (std::size_t i = 0; i < l.size(); ++i) out += (i ? ", " : "") + toml_string(l[i]);
      return out + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

std::string effective_toml(const Settings& settings, const Sources& sources) {
  std::string out = "# perftriage: effective settings; defaults < config file < environment < flags\n";
  out += "# config file: " + (settings.config_file.empty() ? std::string("(none)") : settings.config_file) + "\n";
  for (auto s : sections()) {
    out += "\n[" + std::string(s) + "]\n";
    for (const auto& o : options()) {
      if (o.section != s) continue;
      std::string line = std::string(o.key) + " = " + toml_literal(o.get(settings));
      if (auto it = sources.find(o.name()); it != sources.end()) line += "  # " + it->second;
      out += line + "\n";
    }
    if (s == "github") {
      auto secret = [&](const char* name, const std::string& value, const char* key) {
        std::string line = std::string("# ") + name + ": " + (value.empty() ? "(not set)" : "***");
        if (auto it = sources.find(key); it != sources.end() && !value.empty()) line += " (from " + it->second + ")";
        out += line + "\n";
      };
      secret("token", settings.github.token, "github.token");
      secret("webhook secret", settings.github.webhook_secret, "github.webhook_secret");
    }
  }
  return out;
}

std::string keys_markdown() {
  const Settings defaults;
  auto cell = [](std::string s) {
    std::string out;
    for (const char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string out =
      "| section | key | environment variable | flag | default | meaning |\n"
      "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& o : options()) {
    out += "| `[" + std::string(o.section) + "]` | `" + std::string(o.key) + "` | `" + o.env() + "` | " +
           (o.flag.empty() ? std::string() : "`--" + std::string(o.flag) + "`") + " | `" +
           cell(toml_literal(o.get(defaults))) + "` | " + cell(std::string(o.meaning));
    if (o.kind == Kind::integer || o.kind == Kind::number) out += " (" + range_words(o) + ")";
    out += " |\n";
  }
  return out;
}

}  // namespace perftriage::server::config
