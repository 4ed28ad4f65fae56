#include "server/auth.hpp"

// STUB (skeleton): replaced by the real implementation.
namespace perftriage::server {

std::optional<Error> authorize(ApiRequest&, const RouteOptions&, AppContext&) { return std::nullopt; }
std::vector<std::pair<std::string, std::string>> cors_headers(const ApiRequest&, AppContext&) { return {}; }

std::string_view scope_name(Scope s) {
  switch (s) {
    case Scope::none: return "none";
    case Scope::read: return "read";
    case Scope::upload: return "upload";
    case Scope::triage: return "triage";
    case Scope::bot: return "bot";
    case Scope::admin: return "admin";
  }
  return "none";
}

std::optional<Scope> parse_scope(std::string_view name) {
  for (Scope s : {Scope::read, Scope::upload, Scope::triage, Scope::bot, Scope::admin}) {
    if (scope_name(s) == name) return s;
  }
  return std::nullopt;
}

}  // namespace perftriage::server
