#include "server/http/static_files.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/app/app_context.hpp"
#include "server/http/install_paths.hpp"

namespace perftriage::server {
namespace {

std::string content_type_for(const std::filesystem::path& p) {
  const auto ext = p.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".json") return "application/json";
  return "application/octet-stream";
}

}  // namespace

Result<ApiResponse> web_file(const AppContext& app, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = resolve_web_dir(app.settings().web_dir);  // installed share/perftriage/web, else the source
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().filename().string() != name) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    auto r = text_response(200, content_type_for(entry.path()), body.str());
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  }
  return make_error(ErrorKind::not_found, "no_asset", "no such asset: " + name);
}

}  // namespace perftriage::server
