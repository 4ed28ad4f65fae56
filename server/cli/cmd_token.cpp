// perftriage token create [--db PATH] --name NAME --scope S [--scope S2 | --scope a,b] [--expires 90d|12h|never]
//                         [--json]
//     A new API token, printed once (stored only as a salted hash): alone on stdout, or with --json exactly
//     {"name", "token", "scopes", "expires_at"}. Written to the audit log (actor cli:$USER).
// perftriage token list [--db PATH] [--json]
//     Every token (revoked ones included) with its scopes and dates; never a secret or a hash.
// perftriage token revoke [--db PATH] NAME
//     Refused from then on (a running server stops accepting it within its token cache's lifetime, 10 s by default).
// See schema/token_store.hpp and docs/auth.md.
#include <fmt/format.h>
#include <iomanip>
#include <ostream>

#include <nlohmann/json.hpp>

#include "schema/audit_store.hpp"
#include "schema/token_store.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::cli {
namespace {

constexpr const char* kUsage =
    "usage: perftriage token create [--db PATH] --name NAME --scope read|upload|triage|bot|admin [--scope ...]\n"
    "                               [--expires 90d|12h|30m|never] [--json]\n"
    "       perftriage token list [--db PATH] [--json]\n"
    "       perftriage token revoke [--db PATH] NAME\n";

std::string state_of(const schema::TokenInfo& t, const std::string& now) {
  if (!t.revoked_at.empty()) return "revoked";
  if (!t.expires_at.empty() && t.expires_at <= now) return "expired";
  return "active";
}

int token_create(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db", "name", "scope", "expires"}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  const auto name = args->get("name");
  if (!name || !args->positionals.empty() || args->all("scope").empty()) {
    err << kUsage;
    return 2;
  }
  auto scopes = schema::parse_token_scopes(args->all("scope"));
  if (!scopes) {
    print_error(err, scopes.error());
    return 2;
  }
  auto lifetime = schema::parse_token_lifetime(args->get_or("expires", "never"));
  if (!lifetime) {
    print_error(err, lifetime.error());
    return 2;
  }
  if (!schema::valid_token_name(*name)) {
    err << "perftriage: --name takes 1-64 characters of letters, digits and . _ : @ -\n";
    return 2;
  }
  std::optional<std::string> expires_at;
  if (*lifetime) expires_at = schema::iso8601_from_now(**lifetime);
  auto store = open_store(args->get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto tx = schema::Transaction::begin(store->db());
  if (!tx) {
    print_error(err, tx.error());
    return 1;
  }
  auto created = schema::TokenStore(store->db()).create(*name, *scopes, expires_at);
  if (!created) {
    print_error(err, created.error());
    return 1;
  }
  const nlohmann::json detail{{"scopes", created->info.scopes},
                              {"token_id", created->info.token_id},
                              {"expires_at", expires_at ? nlohmann::json(*expires_at) : nlohmann::json()}};
  if (auto r = schema::append_audit(store->db(), cli_actor(), "token.create", *name, detail.dump()); !r) {
    print_error(err, r.error());
    return 1;
  }
  if (auto r = tx->commit(); !r) {
    print_error(err, r.error());
    return 1;
  }
  if (args->has("json")) {
    out << server::dump_json({{"name", created->info.name},
                              {"token", created->token},
                              {"scopes", created->info.scopes},
                              {"expires_at", expires_at ? nlohmann::json(*expires_at) : nlohmann::json()}})
        << "\n";
  } else {
    out << created->token << "\n";
    err << "perftriage: token '" << created->info.name << "' (scopes: " << fmt::format("{}", fmt::join(created->info.scopes, ", "))
        << "; expires: " << expires_at.value_or("never")
        << ") created. It is shown only this once: store it now. Clients send `Authorization: Bearer TOKEN`.\n";
  }
  return 0;
}

int token_list(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db"}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  if (!args->positionals.empty()) {
    err << kUsage;
    return 2;
  }
  auto store = open_store(args->get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto tokens = schema::TokenStore(store->db()).list();
  if (!tokens) {
    print_error(err, tokens.error());
    return 1;
  }
  const std::string now = schema::iso8601_from_now(0);
  if (args->has("json")) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& t : *tokens) {
      auto j = schema::to_json(t);
      j["state"] = state_of(t, now);
      list.push_back(std::move(j));
    }
    out << server::dump_json(list) << "\n";
    return 0;
  }
  out << std::left << std::setw(24) << "name" << std::setw(18) << "token_id" << std::setw(28) << "scopes"
      << std::setw(9) << "state" << std::setw(22) << "created" << std::setw(22) << "expires" << "last used\n";
  for (const auto& t : *tokens) {
    out << std::left << std::setw(24) << t.name << std::setw(18) << t.token_id << std::setw(28)
        << fmt::format("{}", fmt::join(t.scopes, ",")) << std::setw(9) << state_of(t, now) << std::setw(22) << t.created_at
        << std::setw(22) << (t.expires_at.empty() ? "never" : t.expires_at)
        << (t.last_used_at.empty() ? "never" : t.last_used_at) << "\n";
  }
  return 0;
}

int token_revoke(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db"}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  if (args->positionals.size() != 1) {
    err << kUsage;
    return 2;
  }
  const std::string& name = args->positionals[0];
  auto store = open_store(args->get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto tx = schema::Transaction::begin(store->db());
  if (!tx) {
    print_error(err, tx.error());
    return 1;
  }
  auto revoked = schema::TokenStore(store->db()).revoke(name);
  if (!revoked) {
    print_error(err, revoked.error());
    return 1;
  }
  if (!*revoked) {
    err << "perftriage: no active token named '" << name << "' (perftriage token list)\n";
    return 1;
  }
  if (auto r = schema::append_audit(store->db(), cli_actor(), "token.revoke", name, "{}"); !r) {
    print_error(err, r.error());
    return 1;
  }
  if (auto r = tx->commit(); !r) {
    print_error(err, r.error());
    return 1;
  }
  if (args->has("json")) {
    out << server::dump_json({{"name", name}, {"status", "revoked"}}) << "\n";
  } else {
    out << "revoked token '" << name << "'\n";
  }
  return 0;
}

}  // namespace

int cmd_token(const Args& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty()) {
    err << kUsage;
    return 2;
  }
  const Args rest(argv.begin() + 1, argv.end());
  if (argv[0] == "create") return token_create(rest, out, err);
  if (argv[0] == "list") return token_list(rest, out, err);
  if (argv[0] == "revoke") return token_revoke(rest, out, err);
  if (argv[0] == "--help" || argv[0] == "help") {
    out << kUsage;
    return 0;
  }
  err << "perftriage: unknown token command '" << argv[0] << "'\n" << kUsage;
  return 2;
}

}  // namespace perftriage::cli
