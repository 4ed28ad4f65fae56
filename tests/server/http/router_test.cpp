// server/http/router.hpp: a handler's Error becomes its HTTP answer in the router (handlers return
// Result<ApiResponse>; one returning a plain ApiResponse still fits), and a route that declares its query parameters
// refuses any other one by name, suggesting the nearest.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/app/app_context.hpp"
#include "server/http/router.hpp"
#include "tests/support/route_call.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

Result<ApiResponse> fails(const ApiRequest&, AppContext&) {
  return make_error(ErrorKind::not_found, "no_run", "no run 'x'", {}, 0, "run");
}

Result<ApiResponse> echo_query(const ApiRequest& req, AppContext&) {
  return json_response(200, {{"query", req.query}});
}

ApiResponse plain(const ApiRequest&, AppContext&) { return text_response(200, "text/plain", "plain"); }

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.add("GET", "/fails", fails);
    router_.add("GET", "/plain", plain);
    router_.add("GET", "/open", echo_query);
    router_.add("POST", "/declared", echo_query, RouteOptions{}.params({"run", "platform", "threshold"}));
    router_.add("GET", "/none", echo_query, RouteOptions{}.params({}));
  }
  ApiResponse call(const std::string& method, const std::string& target) {
    return testing::call_route(router_, app_, method, target, "", "");
  }
  static json error_of(const ApiResponse& r) { return json::parse(r.body)["error"]; }

  AppContext app_{Settings{}};  // the handlers here never open the store
  Router router_;
};

TEST_F(RouterTest, HandlerErrorBecomesItsStatusAndBody) {
  auto r = call("GET", "/fails");
  EXPECT_EQ(r.status, 404u);
  EXPECT_EQ(r.content_type, "application/json");
  auto e = error_of(r);
  EXPECT_EQ(e["code"], "no_run");
  EXPECT_EQ(e["column"], "run");
}

TEST_F(RouterTest, HandlerReturningAPlainResponseStillFits) {
  auto r = call("GET", "/plain");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body, "plain");
}

TEST_F(RouterTest, UnknownQueryParameterIsRefusedWithTheNearestName) {
  auto r = call("POST", "/declared?run=a&platfrom=BMG");
  ASSERT_EQ(r.status, 400u) << r.body;
  auto e = error_of(r);
  EXPECT_EQ(e["code"], "unknown_parameter");
  EXPECT_EQ(e["column"], "platfrom");
  const std::string message = e["message"];
  EXPECT_NE(message.find("did you mean platform?"), std::string::npos) << message;
  EXPECT_NE(message.find("/declared"), std::string::npos) << message;
}

TEST_F(RouterTest, UnknownParameterFarFromAnyListsTheDeclaredOnes) {
  auto e = error_of(call("POST", "/declared?colour=red"));
  EXPECT_EQ(e["column"], "colour");
  EXPECT_NE(e["message"].get<std::string>().find("run, platform, threshold"), std::string::npos) << e["message"];
  auto none = error_of(call("GET", "/none?x=1"));
  EXPECT_EQ(none["code"], "unknown_parameter");
  EXPECT_NE(none["message"].get<std::string>().find("takes none"), std::string::npos) << none["message"];
}

TEST_F(RouterTest, DeclaredParametersPassAndUndeclaredRoutesTakeAnything) {
  EXPECT_EQ(call("POST", "/declared?run=a&platform=BMG&threshold=0.9").status, 200u);
  EXPECT_EQ(call("POST", "/declared").status, 200u);
  EXPECT_EQ(call("GET", "/none").status, 200u);
  EXPECT_EQ(call("GET", "/open?anything=1&else=2").status, 200u);
}

TEST_F(RouterTest, RoutingErrorsKeepTheirStatus) {
  EXPECT_EQ(call("GET", "/nothing").status, 404u);
  auto r = call("GET", "/declared");
  EXPECT_EQ(r.status, 405u);
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers.front().first, "Allow");
  EXPECT_EQ(r.headers.front().second, "POST");
  EXPECT_EQ(error_of(r)["code"], "method_not_allowed");
}

}  // namespace
}  // namespace perftriage::server
