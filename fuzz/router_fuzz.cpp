// Routing (every request): Router::dispatch with the shapes of the real routes ({placeholders}, HEAD on GET,
// 404 / 405, declared query parameters) and stub handlers that echo their parameters or throw; the request target
// split into path and query as server/http/http_server.cpp does. Input (FuzzedDataProvider): the method by the last
// byte, the target is the rest.
#include <fuzzer/FuzzedDataProvider.h>

#include <stdexcept>

#include "fuzz/fuzz_util.hpp"
#include "server/app/app_context.hpp"
#include "server/http/router.hpp"

using namespace perftriage;
using perftriage::server::ApiRequest;
using perftriage::server::ApiResponse;
using perftriage::server::AppContext;

namespace {

ApiResponse echo(const ApiRequest& req, AppContext&) {
  return server::json_response(200, {{"path", req.path}, {"params", req.params}, {"query", req.query}});
}

const server::Router& router() {
  static const server::Router r = [] {
    server::Router x;
    x.add("GET", "/api/v1/healthz", echo);
    x.add("GET", "/api/v1/runs", echo, server::RouteOptions{}.params({"platform", "threshold"}));
    x.add("GET", "/api/v1/runs/{key}", echo);
    x.add("DELETE", "/api/v1/runs/{key}", echo);
    x.add("GET", "/api/v1/runs/{key}/report.md", echo);
    x.add("POST", "/api/v1/runs/{key}/cases/{suite}/{dtype}/{mode}/{model}/artifacts", echo);
    x.add("GET", "/api/v1/runs/{key}/cases/{suite}/{dtype}/{mode}/{model}/artifacts", echo);
    x.add("GET", "/api/v1/cases/{suite}/{model}/history", echo);
    x.add("GET", "/api/v1/artifacts/{id}/raw", echo);
    x.add("POST", "/webhooks/github", echo, server::RouteOptions::on(server::Lane::heavy, 0));
    x.add("GET", "/api/v1/boom/{what}", [](const ApiRequest& req, AppContext&) -> ApiResponse {
      throw std::runtime_error("handler failed for " + req.params.at(0));
    });
    x.add("GET", "/{file}", echo);
    return x;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider fdp(data, size);
  static constexpr const char* kMethods[] = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "get", ""};
  static AppContext app{server::Settings{}};  // the stub handlers never open the store
  ApiRequest req;
  req.method = fdp.PickValueInArray(kMethods);
  const std::string target = fdp.ConsumeRemainingBytesAsString();
  const auto qpos = target.find('?');
  req.path = target.substr(0, qpos);
  if (qpos != std::string::npos) req.query = server::parse_query(std::string_view(target).substr(qpos + 1));
  (void)router().options_for(req.method, req.path);
  const ApiResponse res = router().dispatch(req, app);
  // 204 only for OPTIONS on a known path (the answer to a preflight, with Allow and no body).
  const bool preflight = res.status == 204 && req.method == "OPTIONS";
  // 400 only for a query parameter that a route declaring its parameters does not take.
  const bool unknown_parameter = res.status == 400 && res.body.find("unknown_parameter") != std::string::npos;
  FUZZ_CHECK(res.status == 200 || res.status == 404 || res.status == 405 || res.status == 500 || preflight ||
                 unknown_parameter,
             "unexpected status " + std::to_string(res.status));
  if (res.status == 405 || preflight) {
    bool allow = false;
    for (const auto& [name, value] : res.headers) allow = allow || (name == "Allow" && !value.empty());
    FUZZ_CHECK(allow, std::to_string(res.status) + " without Allow");
  }
  FUZZ_CHECK(preflight || !res.body.empty(), "empty response body");
  return 0;
}
