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

#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "schema/audit_store.hpp"
#include "schema/token_store.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

using nlohmann::json;

struct TokenOptions {
  std::string db, name, expires = "never";
  std::vector<std::string> scopes;
  bool json = false;
};

std::string state_of(const schema::TokenInfo& t, const std::string& now) {
  if (!t.revoked_at.empty()) return "revoked";
  if (!t.expires_at.empty() && t.expires_at <= now) return "expired";
  return "active";
}

Result<int> token_create(const TokenOptions& o, const std::vector<std::string>& scopes,
                         const std::optional<std::string>& expires_at, Io io) {
  PT_ASSIGN(auto store, open_store(o.db));
  const json expires = expires_at ? json(*expires_at) : json();
  auto create_and_audit = [&]() -> Result<schema::NewToken> {
    PT_ASSIGN(auto token, schema::create_token(store.db(), o.name, scopes, expires_at));
    const json detail{{"scopes", token.info.scopes}, {"token_id", token.info.token_id}, {"expires_at", expires}};
    PT_TRY(schema::append_audit(store.db(), cli_actor(), "token.create", o.name, detail.dump()));
    return token;
  };
  PT_ASSIGN(const auto created, in_transaction(store, create_and_audit));
  if (o.json) {
    io.out << server::rendered_json({{"name", created.info.name},
                                     {"token", created.token},
                                     {"scopes", created.info.scopes},
                                     {"expires_at", expires}})
                  .body;
    return 0;
  }
  io.out << created.token << "\n";
  io.err << "perftriage: token '" << created.info.name
         << "' (scopes: " << fmt::format("{}", fmt::join(created.info.scopes, ", "))
         << "; expires: " << expires_at.value_or("never")
         << ") created. It is shown only this once: store it now. Clients send `Authorization: Bearer TOKEN`.\n";
  return 0;
}

Result<int> token_list(const TokenOptions& o, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto tokens, schema::list_tokens(store.db()));
  const std::string now = schema::iso8601_from_now(0);
  if (o.json) {
    json list = json::array();
    for (const auto& t : tokens) {
      auto j = schema::to_json(t);
      j["state"] = state_of(t, now);
      list.push_back(std::move(j));
    }
    io.out << server::rendered_json(list).body;
    return 0;
  }
  io.out << fmt::format("{:<24}{:<18}{:<28}{:<9}{:<22}{:<22}last used\n", "name", "token_id", "scopes", "state",
                        "created", "expires");
  for (const auto& t : tokens) {
    io.out << fmt::format("{:<24}{:<18}{:<28}{:<9}{:<22}{:<22}{}\n", t.name, t.token_id,
                          fmt::format("{}", fmt::join(t.scopes, ",")), state_of(t, now), t.created_at,
                          t.expires_at.empty() ? "never" : t.expires_at,
                          t.last_used_at.empty() ? "never" : t.last_used_at);
  }
  return 0;
}

Result<int> token_revoke(const TokenOptions& o, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  auto revoke_and_audit = [&]() -> Result<void> {
    PT_ASSIGN(const bool revoked, schema::revoke_token(store.db(), o.name));
    if (!revoked) {
      return make_error(ErrorKind::not_found, "no_such_token",
                        "no active token named '" + o.name + "' (perftriage token list)");
    }
    return schema::append_audit(store.db(), cli_actor(), "token.revoke", o.name, "{}");
  };
  PT_TRY(in_transaction(store, revoke_and_audit));
  if (o.json) {
    io.out << server::rendered_json({{"name", o.name}, {"status", "revoked"}}).body;
  } else {
    io.out << "revoked token '" << o.name << "'\n";
  }
  return 0;
}

Command sub(const Command& cmd, const char* name, const char* what) {
  return {cmd.app->add_subcommand(name, what), cmd.io, cmd.chosen};
}

}  // namespace

void add_token(const Command& cmd) {
  cmd.app->require_subcommand(1);
  auto c = std::make_shared<TokenOptions>();
  const Command create = sub(cmd, "create", "a new API token, printed once (stored only as a salted hash)");
  add_db_option(*create.app, c->db);
  create.app->add_option("--name", c->name, "1-64 letters, digits and . _ : @ -")->required();
  create.app->add_option("--scope", c->scopes, "read, upload, triage, bot, admin (repeatable, or a,b)")->required();
  create.app->add_option("--expires", c->expires, "a lifetime: 90d, 12h, 30m or never")->capture_default_str();
  create.app->add_flag("--json", c->json, "print {name, token, scopes, expires_at}");
  create.on_run([c, io = cmd.io] {
    const auto scopes = or_usage(schema::parse_token_scopes(c->scopes), "--scope");
    const auto lifetime = or_usage(schema::parse_token_lifetime(c->expires), "--expires");
    if (!schema::valid_token_name(c->name)) usage_error("--name", "takes 1-64 letters, digits and . _ : @ -");
    std::optional<std::string> expires_at;
    if (lifetime) expires_at = schema::iso8601_from_now(*lifetime);
    return [c, io, scopes, expires_at] { return token_create(*c, scopes, expires_at, io); };
  });

  auto l = std::make_shared<TokenOptions>();
  const Command list = sub(cmd, "list", "every token (revoked ones included) with its scopes and dates; no secret");
  add_db_option(*list.app, l->db);
  list.app->add_flag("--json", l->json, "as JSON");
  list.on_run([l, io = cmd.io] { return [l, io] { return token_list(*l, io); }; });

  auto r = std::make_shared<TokenOptions>();
  const Command revoke = sub(cmd, "revoke", "refuse the token from now on (a running server within 10 s)");
  add_db_option(*revoke.app, r->db);
  revoke.app->add_option("name", r->name, "the token's name")->required();
  revoke.app->add_flag("--json", r->json, "as JSON");
  revoke.on_run([r, io = cmd.io] { return [r, io] { return token_revoke(*r, io); }; });
}

}  // namespace perftriage::cli
