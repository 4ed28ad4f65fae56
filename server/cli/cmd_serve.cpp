#include <charconv>
#include <ostream>
#include <thread>

#include "server/app_context.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/demo_data.hpp"
#include "server/http_server.hpp"
#include "server/queries.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::cli {

int cmd_serve(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db", "listen", "threads", "web-dir", "threshold", "max-body-mb"}, {"demo"});
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
  if (auto mb = args->get("max-body-mb")) settings.max_body_bytes = std::stoull(*mb) << 20;
  auto threshold = server::parse_threshold(args->get_or("threshold", ""), 1.0);
  if (!threshold) {
    print_error(err, threshold.error());
    return 2;
  }
  settings.slow_threshold = *threshold;
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
  http.run(settings.threads);
  out << "perftriage: stopped" << std::endl;
  return 0;
}

}  // namespace perftriage::cli
