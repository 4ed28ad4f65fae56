// GET /api/v1 (the index the dashboard's footer links to) and the query parameters every route of make_router()
// declares: a misspelled one is refused by name on the state-changing routes and the reads alike.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <tuple>

#include "server/app/app_context.hpp"
#include "server/http/auth.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

class ApiIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-api-index-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    app_ = std::make_unique<AppContext>(settings);
    router_ = make_router();
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  ApiResponse call(const std::string& method, const std::string& target, const std::string& body = {},
                   const std::string& type = {}) {
    return testing::call_route(router_, *app_, method, target, body, type);
  }

  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
  Router router_;
};

TEST_F(ApiIndexTest, IndexListsEveryRouteWithItsScope) {
  auto r = call("GET", "/api/v1");
  ASSERT_EQ(r.status, 200u) << r.body;
  const json index = json::parse(r.body);
  EXPECT_EQ(index["name"], "perftriage");
  EXPECT_FALSE(index["version"].get<std::string>().empty());
  EXPECT_EQ(index["openapi"], "/api/v1/openapi.json");
  std::set<std::tuple<std::string, std::string, std::string>> listed;
  for (const auto& route : index["routes"]) {
    listed.insert(
        {route["method"].get<std::string>(), route["pattern"].get<std::string>(), route["scope"].get<std::string>()});
  }
  const auto table = router_.table();
  EXPECT_EQ(listed.size(), table.size());
  for (const RouteOptions* route : table) {
    EXPECT_TRUE(listed.count({route->method, route->pattern, std::string(scope_name(route->scope))}))
        << route->method << " " << route->pattern << " is not in the index";
  }
  EXPECT_TRUE(listed.count({"GET", "/api/v1", "none"}));
  EXPECT_EQ(call("GET", "/api/v1?x=1").status, 400u);
}

TEST_F(ApiIndexTest, MisspelledUploadParameterIsRefusedAndNothingIsStored) {
  auto r = call("POST", "/api/v1/uploads?run=r1&platfrom=BMG", "dev,name\n", "text/csv");
  ASSERT_EQ(r.status, 400u) << r.body;
  const json e = json::parse(r.body)["error"];
  EXPECT_EQ(e["code"], "unknown_parameter");
  EXPECT_EQ(e["column"], "platfrom");
  EXPECT_NE(e["message"].get<std::string>().find("did you mean platform?"), std::string::npos) << e["message"];
  EXPECT_EQ(call("GET", "/api/v1/dashboard/runs").body.find("r1"), std::string::npos);
}

TEST_F(ApiIndexTest, StateChangingRoutesRefuseUnknownParameters) {
  const std::string c = "/api/v1/runs/r/cases/s/d/m/x";
  for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"POST", "/api/v1/uploads?platfrom=x"},
           {"POST", c + "/artifacts?rol=baseline"},
           {"POST", "/api/v1/label?taxonomy=pytorch"},
           {"POST", "/api/v1/classify?nam=trace.json"},
           {"POST", "/api/v1/outbox/tracking-issue?dry=1"},
           {"GET", "/api/v1/results?flg=slow"},
           {"GET", "/api/v1/dashboard/runs?platfrom=BMG"},
           {"GET", "/api/v1/backlog?platform=BMG&treshold=0.9"},
       }) {
    auto r = call(method, target, "{}", "application/json");
    EXPECT_EQ(r.status, 400u) << method << " " << target << ": " << r.body;
    EXPECT_EQ(json::parse(r.body)["error"]["code"], "unknown_parameter") << method << " " << target;
  }
}

TEST_F(ApiIndexTest, DashboardQueriesStillPass) {
  // What web/*.js sends: none of it is refused (the answers are about an empty database, not the parameters).
  EXPECT_EQ(call("GET", "/api/v1/dashboard/overview?runs=30").status, 200u);
  EXPECT_EQ(call("GET", "/api/v1/dashboard/runs?limit=1000&platform=BMG").status, 200u);
  EXPECT_NE(json::parse(call("GET", "/api/v1/dashboard/matrix?run=r").body)["error"]["code"], "unknown_parameter");
  EXPECT_NE(json::parse(call("GET", "/api/v1/cases/s/m/history?platform=BMG&dtype=d&mode=m").body)["error"]["code"],
            "unknown_parameter");
  EXPECT_EQ(call("GET", "/api/v1/outbox?state=pending").status, 200u);
  EXPECT_EQ(call("GET", "/api/v1/issues?limit=5").status, 200u);
  EXPECT_EQ(call("GET", "/api/v1/results?run=&flag=failed&limit=500").status, 200u);
}

}  // namespace
}  // namespace perftriage::server
