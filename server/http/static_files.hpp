#pragma once
// The dashboard's assets from the web directory (server/http/install_paths.hpp): the route is registered in
// server/routes/web.cpp; this only finds and reads a file.
#include <string>

#include "common/result.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::server {

class AppContext;

// The file `name` of the web directory, with its content type and Cache-Control: no-cache; not_found
// ("no_asset") otherwise. Names are looked up in the directory listing, never joined from the request, so no path
// can escape the directory.
Result<ApiResponse> web_file(const AppContext& app, const std::string& name);

}  // namespace perftriage::server
