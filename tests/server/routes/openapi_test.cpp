// GET /api/v1/openapi.json against the router's table, in both directions: every route is documented with the same
// {placeholders} and the same scope (x-perftriage-scope), every documented operation is routed, and the document has
// the shape of OpenAPI 3.1 (operations with responses, path parameters declared, security matching the scope).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "common/strings.hpp"
#include "server/app/app_context.hpp"
#include "server/http/auth.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/route_call.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

const std::set<std::string> kMethods{"get", "put", "post", "delete", "patch", "head", "options", "trace"};

std::vector<std::string> placeholders(const std::string& pattern) {
  std::vector<std::string> out;
  for (std::size_t i = pattern.find('{'); i != std::string::npos; i = pattern.find('{', i + 1)) {
    out.push_back(pattern.substr(i + 1, pattern.find('}', i) - i - 1));
  }
  return out;
}

class OpenApi : public ::testing::Test {
 protected:
  void SetUp() override {
    Settings settings;
    settings.db_path = (std::filesystem::temp_directory_path() / "perftriage-openapi-test.sqlite").string();
    app_ = std::make_unique<AppContext>(settings);
    router_ = make_router();
    auto res = testing::call_route(router_, *app_, "GET", "/api/v1/openapi.json", "", "");
    ASSERT_EQ(res.status, 200u);
    ASSERT_EQ(res.content_type.rfind("application/json", 0), 0u);
    doc_ = json::parse(res.body, nullptr, false);
    ASSERT_FALSE(doc_.is_discarded()) << "the served document is not JSON";
    ASSERT_TRUE(doc_.is_object());
  }
  // Resolves {"$ref": "#/components/..."} once.
  const json& deref(const json& j) const {
    if (!j.is_object() || !j.contains("$ref")) return j;
    const std::string ref = j["$ref"];
    EXPECT_EQ(ref.rfind("#/", 0), 0u) << ref;
    return doc_.at(json::json_pointer(ref.substr(1)));
  }
  std::unique_ptr<AppContext> app_;
  Router router_;
  json doc_;
};

TEST_F(OpenApi, HasTheShapeOfOpenApi31) {
  EXPECT_EQ(doc_.value("openapi", ""), "3.1.0");
  ASSERT_TRUE(doc_.contains("info") && doc_["info"].contains("title") && doc_["info"].contains("version"));
  ASSERT_TRUE(doc_.contains("paths") && doc_["paths"].is_object() && !doc_["paths"].empty());
  const auto& schemes = doc_.at("/components/securitySchemes"_json_pointer);
  ASSERT_TRUE(schemes.contains("bearerAuth"));
  EXPECT_EQ(schemes["bearerAuth"].value("type", ""), "http");
  EXPECT_EQ(schemes["bearerAuth"].value("scheme", ""), "bearer");
  // The error schema every error response uses.
  const auto& error = doc_.at("/components/schemas/Error/properties/error/properties"_json_pointer);
  for (const char* field : {"code", "message", "file", "line", "column", "request_id"}) {
    EXPECT_TRUE(error.contains(field)) << "the Error schema lacks " << field;
  }
  std::set<std::string> operation_ids;
  for (const auto& [path, item] : doc_["paths"].items()) {
    ASSERT_EQ(path.rfind('/', 0), 0u) << path;
    std::size_t operations = 0;
    for (const auto& [method, op] : item.items()) {
      if (!kMethods.count(method)) continue;
      ++operations;
      const std::string where = method + " " + path;
      ASSERT_TRUE(op.is_object()) << where;
      EXPECT_TRUE(op.contains("operationId") && operation_ids.insert(op["operationId"].get<std::string>()).second)
          << where << ": missing or repeated operationId";
      ASSERT_TRUE(op.contains("responses") && op["responses"].is_object() && !op["responses"].empty()) << where;
      for (const auto& [code, response] : op["responses"].items()) {
        EXPECT_TRUE(code.size() == 3 && std::isdigit(static_cast<unsigned char>(code[0]))) << where << " " << code;
        EXPECT_TRUE(deref(response).contains("description")) << where << " " << code;
      }
      // Every {placeholder} is a declared path parameter, and every declared path parameter is in the path.
      std::set<std::string> declared;
      for (const auto& p : op.value("parameters", json::array())) {
        const auto& param = deref(p);
        if (param.value("in", "") == "path") {
          EXPECT_TRUE(param.value("required", false)) << where << ": path parameter " << param["name"];
          declared.insert(param["name"].get<std::string>());
        }
      }
      const auto names = placeholders(path);
      EXPECT_EQ(declared, std::set<std::string>(names.begin(), names.end())) << where;
      // Security matches the scope: none = [], read = anonymous allowed or bearer read, else bearer SCOPE only.
      ASSERT_TRUE(op.contains("x-perftriage-scope") && op["x-perftriage-scope"].is_string()) << where;
      ASSERT_TRUE(op.contains("security") && op["security"].is_array()) << where;
      const std::string scope = op["x-perftriage-scope"];
      EXPECT_TRUE(scope == "none" || parse_scope(scope).has_value()) << where << ": unknown scope " << scope;
      if (scope == "none") {
        EXPECT_TRUE(op["security"].empty()) << where;
      } else {
        bool bearer = false;
        for (const auto& requirement : op["security"]) {
          if (requirement.contains("bearerAuth")) bearer = requirement["bearerAuth"] == json::array({scope});
        }
        EXPECT_TRUE(bearer) << where << ": security does not name bearerAuth [" << scope << "]";
        EXPECT_TRUE(op["responses"].contains("401")) << where;
      }
    }
    EXPECT_GT(operations, 0u) << path << " has no operation";
  }
}

TEST_F(OpenApi, EveryRouteIsDocumentedWithItsScope) {
  const auto table = router_.table();
  ASSERT_FALSE(table.empty());
  for (const RouteOptions* route : table) {
    const std::string where = route->method + " " + route->pattern;
    ASSERT_TRUE(doc_["paths"].contains(route->pattern)) << where << " is not in server/routes/openapi.json";
    const auto& item = doc_["paths"][route->pattern];
    ASSERT_TRUE(item.contains(lower(route->method))) << where << " is not in server/routes/openapi.json";
    const auto& op = item[lower(route->method)];
    EXPECT_EQ(op.value("x-perftriage-scope", ""), std::string(scope_name(route->scope)))
        << where << ": the document's x-perftriage-scope differs from the route's scope";
    // A route that accepts only some content types documents exactly those (415 for the rest).
    if (!route->content_types.empty()) {
      std::set<std::string> documented;
      if (op.contains("requestBody")) {
        const json content = deref(op["requestBody"]).value("content", json::object());
        for (const auto& [type, media] : content.items()) {
          documented.insert(lower(type.substr(0, type.find(';'))));
        }
      }
      EXPECT_EQ(documented, std::set<std::string>(route->content_types.begin(), route->content_types.end()))
          << where << ": the documented request content types differ from the accepted ones";
      EXPECT_TRUE(op["responses"].contains("415")) << where;
    }
    if (route->scope_for) {
      EXPECT_NE(op.value("description", "").find("Escalation"), std::string::npos)
          << where << " decides its scope from the request: its description says when (\"Escalation: ...\")";
    }
  }
}

// A route that declares its query parameters (RouteOptions::params) refuses every other one: the document lists
// exactly those, and the 400 that answers the rest.
TEST_F(OpenApi, DeclaredQueryParametersAreTheDocumentedOnes) {
  std::size_t declaring = 0;
  for (const RouteOptions* route : router_.table()) {
    if (!route->query_params) continue;
    ++declaring;
    const std::string where = route->method + " " + route->pattern;
    const auto& op = doc_["paths"][route->pattern][lower(route->method)];
    std::set<std::string> documented;
    for (const auto& p : op.value("parameters", json::array())) {
      const auto& param = deref(p);
      if (param.value("in", "") == "query") documented.insert(param["name"].get<std::string>());
    }
    EXPECT_EQ(std::set<std::string>(route->query_params->begin(), route->query_params->end()), documented)
        << where << ": the declared query parameters differ from the documented ones";
    EXPECT_TRUE(op["responses"].contains("400")) << where << " refuses unknown parameters with 400";
  }
  EXPECT_GE(declaring, 15u) << "the API routes declare their query parameters";
}

TEST_F(OpenApi, EveryDocumentedOperationIsRouted) {
  std::set<std::pair<std::string, std::string>> routed;
  for (const RouteOptions* route : router_.table()) routed.insert({lower(route->method), route->pattern});
  for (const auto& [path, item] : doc_["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      if (!kMethods.count(method)) continue;
      EXPECT_TRUE(routed.count({method, path})) << method << " " << path << " is documented but not routed";
    }
  }
}

TEST_F(OpenApi, ServedDocumentIsTheCheckedInFile) {
  std::ifstream in(std::string(PERFTRIAGE_SOURCE_DIR) + "/server/routes/openapi.json");
  ASSERT_TRUE(in) << "server/routes/openapi.json";
  const json file = json::parse(in, nullptr, false);
  EXPECT_EQ(file, doc_);
}

}  // namespace
}  // namespace perftriage::server
