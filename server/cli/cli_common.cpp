#include "server/cli/cli_common.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>

namespace perftriage::cli {

Result<schema::Store> open_store(const std::string& path) {
  if (path != ":memory:") {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) {
      return make_error(ErrorKind::internal, "db_dir", "cannot create " + parent.string() + ": " + ec.message());
    }
  }
  return schema::Store::open(path);
}

std::string cli_actor() {
  if (const char* user = std::getenv("USER"); user && *user) return std::string("cli:") + user;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) return std::string("cli:") + pw->pw_name;
  return "cli:uid" + std::to_string(::getuid());
}

void print_error(std::ostream& err, const Error& e) {
  err << "perftriage: ";
  if (!e.file.empty()) {
    err << e.file;
    if (e.line > 0) err << ":" << e.line;
    err << ": ";
  }
  if (!e.column.empty()) err << "column " << e.column << ": ";
  err << e.message << " (" << e.code << ")\n";
}

std::optional<std::string> table_format(const ParsedArgs& args, std::ostream& err) {
  std::string format = args.has("json") ? "json" : args.get_or("format", "md");
  if (format == "md" || format == "csv" || format == "json") return format;
  err << "perftriage: --format must be md, csv or json\n";
  return std::nullopt;
}

}  // namespace perftriage::cli
