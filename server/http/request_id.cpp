#include "server/http/request_id.hpp"

#include <strings.h>

#include <cctype>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace perftriage::server {
namespace {

bool well_formed_request_id(std::string_view id) {
  if (id.empty() || id.size() > 64) return false;
  for (unsigned char c : id)
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

}  // namespace

std::string request_id_for(const ApiRequest& head) {
  std::string sent = head.header("x-request-id");
  if (well_formed_request_id(sent)) return sent;
  // 128 random bits as 32 hex digits; one generator per thread, seeded once from the system.
  thread_local std::mt19937_64 rng{[] {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd()};
    return std::mt19937_64(seq);
  }()};
  return fmt::format("{:016x}{:016x}", rng(), rng());
}

void stamp_response(ApiResponse& response, std::string_view request_id) {
  if (request_id.empty()) return;
  bool has_header = false;
  for (auto& [name, value] : response.headers) {
    if (name.size() == 12 && strcasecmp(name.c_str(), "x-request-id") == 0) {
      value = std::string(request_id);
      has_header = true;
    }
  }
  if (!has_header) response.headers.emplace_back("X-Request-Id", std::string(request_id));
  // Only error answers are parsed, and only small JSON ones ({"error": {...}} from error_response()).
  if (response.status < 400 || response.body.empty() || response.body.size() > (1u << 20)) return;
  if (response.content_type.rfind("application/json", 0) != 0) return;
  auto j = nlohmann::json::parse(response.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return;
  auto it = j.find("error");
  if (it == j.end() || !it->is_object()) return;
  (*it)["request_id"] = std::string(request_id);
  response.body = dump_json(j);
}

}  // namespace perftriage::server
