#include <algorithm>
#include <charconv>
#include <optional>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <thread>

#include "server/app_context.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/demo_data.hpp"
#include "server/http_server.hpp"
#include "server/outbox_worker.hpp"
#include "server/queries.hpp"
#include "server/routes/routes.hpp"
#include "server/webhook_service.hpp"

namespace perftriage::cli {
namespace {

// A secret from a file (trailing newline dropped) or else from the environment; "" when neither is set.
Result<std::string> read_secret(const std::optional<std::string>& file, const char* env) {
  std::string value;
  if (file) {
    std::ifstream in(*file, std::ios::binary);
    if (!in) return make_error(ErrorKind::invalid_input, "unreadable_secret", "cannot read " + *file, *file);
    std::stringstream ss;
    ss << in.rdbuf();
    value = ss.str();
  } else if (const char* v = std::getenv(env)) {
    value = v;
  }
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r' || value.back() == ' ')) value.pop_back();
  return value;
}

Result<long> non_negative(const ParsedArgs& args, const char* name, long fallback) {
  auto v = args.get(name);
  if (!v) return fallback;
  long out = 0;
  if (std::from_chars(v->data(), v->data() + v->size(), out).ec != std::errc() || out < 0) {
    return make_error(ErrorKind::invalid_input, "bad_option",
                      std::string("--") + name + " takes a non-negative integer");
  }
  return out;
}

// The GitHub bot's part of the command line.
Result<void> github_settings(const ParsedArgs& args, server::GitHubSettings& gh) {
  gh.api_base = args.get_or("github-api", gh.api_base);
  gh.bot_login = args.get_or("bot-login", gh.bot_login);
  gh.taxonomy = args.get_or("bot-taxonomy", gh.taxonomy);
  auto token = read_secret(args.get("github-token-file"), "PERFTRIAGE_GITHUB_TOKEN");
  if (!token) return std::move(token).error();
  gh.token = *token;
  auto secret = read_secret(args.get("webhook-secret-file"), "PERFTRIAGE_WEBHOOK_SECRET");
  if (!secret) return std::move(secret).error();
  gh.webhook_secret = *secret;
  auto interval = non_negative(args, "github-min-interval-ms", 1000);
  if (!interval) return std::move(interval).error();
  gh.min_mutation_interval_s = static_cast<double>(*interval) / 1000.0;
  auto timeout = non_negative(args, "github-timeout-ms", gh.request_timeout_ms);
  if (!timeout) return std::move(timeout).error();
  gh.request_timeout_ms = *timeout;
  auto backoff = non_negative(args, "github-backoff-ms", gh.backoff_base_ms);
  if (!backoff) return std::move(backoff).error();
  gh.backoff_base_ms = *backoff;
  auto attempts = non_negative(args, "github-max-attempts", gh.max_attempts);
  if (!attempts) return std::move(attempts).error();
  if (*attempts < 1) return make_error(ErrorKind::invalid_input, "bad_option", "--github-max-attempts must be >= 1");
  gh.max_attempts = static_cast<int>(*attempts);
  return {};
}

server::WorkerOptions worker_options(const server::GitHubSettings& gh) {
  server::WorkerOptions o;
  o.client.api_base = gh.api_base;
  o.client.token = gh.token;
  o.client.connect_timeout_ms = std::min(gh.connect_timeout_ms, gh.request_timeout_ms);
  o.client.total_timeout_ms = gh.request_timeout_ms;
  o.retry.max_attempts = gh.max_attempts;
  o.retry.base_ms = gh.backoff_base_ms;
  o.retry.cap_ms = gh.backoff_cap_ms;
  o.min_interval_ms = static_cast<std::int64_t>(gh.min_mutation_interval_s * 1000.0);
  return o;
}

}  // namespace

int cmd_serve(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv,
                         {"db", "listen", "threads", "web-dir", "threshold", "max-body-mb", "github-api",
                          "github-token-file", "webhook-secret-file", "bot-login", "bot-taxonomy",
                          "github-min-interval-ms", "github-timeout-ms", "github-backoff-ms", "github-max-attempts",
                          "read-workers", "read-queue", "heavy-workers", "heavy-queue"},
                         {"demo"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  server::Settings settings;
  settings.db_path = args->get_or("db", kDefaultDb);
  settings.demo = args->has("demo");
  settings.web_dir = args->get_or("web-dir", "");
  settings.threads = std::max(2u, std::thread::hardware_concurrency());
  if (auto t = args->get("threads")) settings.threads = static_cast<unsigned>(std::max(1, std::atoi(t->c_str())));
  if (auto mb = args->get("max-body-mb")) {
    std::size_t value = 0;
    const auto [ptr, ec] = std::from_chars(mb->data(), mb->data() + mb->size(), value);
    if (ec != std::errc() || ptr != mb->data() + mb->size() || value == 0 || value > (1u << 20)) {
      err << "perftriage: --max-body-mb takes a whole number of MiB, got '" << *mb << "'\n";
      return 2;
    }
    settings.max_body_bytes = value << 20;
  }
  for (auto [name, value] : {std::pair{"read-workers", &settings.read_workers}, {"heavy-workers", &settings.heavy_workers}}) {
    auto n = non_negative(*args, name, *value);
    if (!n || *n < 1 || *n > 256) {
      err << "perftriage: --" << name << " takes a whole number from 1 to 256\n";
      return 2;
    }
    *value = static_cast<unsigned>(*n);
  }
  for (auto [name, value] : {std::pair{"read-queue", &settings.read_queue}, {"heavy-queue", &settings.heavy_queue}}) {
    auto n = non_negative(*args, name, static_cast<long>(*value));
    if (!n || *n < 1 || *n > 100000) {
      err << "perftriage: --" << name << " takes a whole number from 1 to 100000\n";
      return 2;
    }
    *value = static_cast<std::size_t>(*n);
  }
  auto threshold = server::parse_threshold(args->get_or("threshold", ""), 1.0);
  if (!threshold) {
    print_error(err, threshold.error());
    return 2;
  }
  settings.slow_threshold = *threshold;
  if (auto gh = github_settings(*args, settings.github); !gh) {
    print_error(err, gh.error());
    return 2;
  }
  const std::string listen = args->get_or("listen", "127.0.0.1:8080");
  const auto colon = listen.rfind(':');
  unsigned port = 0;
  if (colon == std::string::npos ||
      std::from_chars(listen.data() + colon + 1, listen.data() + listen.size(), port).ec != std::errc() ||
      port > 65535) {
    err << "perftriage: --listen takes HOST:PORT, got '" << listen << "'\n";
    return 2;
  }
  settings.listen_host = listen.substr(0, colon);
  if (settings.listen_host.size() > 2 && settings.listen_host.front() == '[') {
    settings.listen_host = settings.listen_host.substr(1, settings.listen_host.size() - 2);
  }
  settings.listen_port = static_cast<unsigned short>(port);

  {  // migrate (and load the demo) before accepting connections
    auto store = open_store(settings.db_path);
    if (!store) {
      print_error(err, store.error());
      return 1;
    }
    if (settings.demo) {
      auto added = server::load_demo_data(*store);
      if (!added) {
        print_error(err, added.error());
        return 1;
      }
      out << "perftriage: demo data: " << *added << " runs added\n";
    }
    // Deliveries in progress when the process last stopped: once more, or quarantined (never a crash loop).
    server::recover_deliveries(*store, settings.github, err);
  }
  server::AppContext app(settings);
  const server::Router router = server::make_router();
  server::HttpServer http(app, router);
  auto bound = http.listen(settings.listen_host, settings.listen_port);
  if (!bound) {
    print_error(err, bound.error());
    return 1;
  }
  // Tests and scripts read this line to learn the port when started with :0.
  out << "perftriage: listening on http://" << settings.listen_host << ":" << *bound << " (db " << settings.db_path
      << ")" << std::endl;
  // The outbox worker sends the bot's actions; without a token they are recorded as dry_run and nothing is sent.
  std::optional<server::OutboxWorker> worker;
  if (settings.github.token.empty()) {
    out << "perftriage: GitHub bot: dry run (no token): actions are recorded, nothing is sent" << std::endl;
  } else {
    worker.emplace(app, worker_options(settings.github));
    worker->start();
    out << "perftriage: GitHub bot: sending to " << settings.github.api_base << std::endl;
  }
  if (settings.github.webhook_secret.empty()) {
    out << "perftriage: GitHub bot: no webhook secret: POST /webhooks/github answers 401" << std::endl;
  }
  http.run(settings.threads);
  if (worker) worker->stop();
  out << "perftriage: stopped" << std::endl;
  return 0;
}

}  // namespace perftriage::cli
