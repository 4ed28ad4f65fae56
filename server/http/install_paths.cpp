#include "server/http/install_paths.hpp"

#include <system_error>

#ifndef PERFTRIAGE_WEB_DIR
#define PERFTRIAGE_WEB_DIR ""
#endif
#ifndef PERFTRIAGE_INSTALL_DATADIR
#define PERFTRIAGE_INSTALL_DATADIR ""
#endif

namespace perftriage::server {
namespace fs = std::filesystem;

std::vector<fs::path> web_dir_candidates() {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && exe.has_parent_path()) {
    out.push_back((exe.parent_path() / ".." / "share" / "perftriage" / "web").lexically_normal());
  }
  if (const std::string_view src = PERFTRIAGE_WEB_DIR; !src.empty()) out.emplace_back(src);
  if (const std::string_view data = PERFTRIAGE_INSTALL_DATADIR; !data.empty()) {
    out.push_back(fs::path(data) / "perftriage" / "web");
  }
  return out;
}

fs::path resolve_web_dir(std::string_view configured) {
  if (!configured.empty()) return fs::path(configured);
  static const fs::path resolved = [] {
    const auto candidates = web_dir_candidates();
    for (const auto& dir : candidates) {
      std::error_code ec;
      if (fs::is_regular_file(dir / "index.html", ec)) return dir;
    }
    return candidates.empty() ? fs::path(PERFTRIAGE_WEB_DIR) : candidates.front();
  }();
  return resolved;
}

}  // namespace perftriage::server
