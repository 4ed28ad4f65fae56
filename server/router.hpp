#pragma once
// Method + path-pattern routing. Patterns are literal segments and {placeholders}
// ("/api/v1/runs/{key}"); placeholders match one decoded segment.
#include <functional>
#include <string>
#include <vector>

#include "server/http_types.hpp"

namespace perftriage::server {

class AppContext;
using Handler = std::function<ApiResponse(const ApiRequest&, AppContext&)>;

class Router {
 public:
  void add(std::string method, std::string pattern, Handler handler);
  // 404 for an unknown path, 405 (with Allow) for a known path and another method.
  ApiResponse dispatch(ApiRequest request, AppContext& app) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace perftriage::server
