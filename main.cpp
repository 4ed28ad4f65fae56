// perftriage: a thin entry point; every command lives in server/cli/.
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "server/cli/commands.hpp"

namespace {

constexpr std::string_view kUsage =
    "usage: perftriage <command> [options]\n"
    "commands:\n"
    "  serve     [--config FILE] [--db PATH] [--listen HOST:PORT] [--demo] [--integrity-check] [...]\n"
    "            (settings: defaults < FILE or $PERFTRIAGE_CONFIG < PERFTRIAGE_<SECTION>_<KEY> < flags;\n"
    "            `perftriage config keys` lists every key, its variable and its flag)\n"
    "  ingest    --platform P [--run KEY] [--device D] [--torch-version V] [--commit SHA]\n"
    "            [--suite S --dtype T --mode M --kind K] [--config C] [--tag T]... [--env K=V]...\n"
    "            [--replace] [--json] [--db PATH] PATH...\n"
    "  slow      [--run KEY | --platform P] [--threshold X] [--format md|csv|json] [--db PATH]\n"
    "  runs      [--platform P] [--json] [--db PATH]  |  runs delete KEY [--json] [--db PATH]\n"
    "  classify  [--json] FILE...  |  classify --base A --target B\n"
    "  label     --json --title T --body-file F [--labels a,b] [--taxonomy NAME]\n"
    "  compare   --base KEY|previous|TAG --target KEY [--format md|csv|json] [--db PATH]\n"
    "  report    --run KEY --kind slow | --base KEY --target KEY --kind regressions [--db PATH]\n"
    "  token     create --name NAME --scope S[,S...] [--expires 90d|12h|never] [--json] [--db PATH]\n"
    "            | list [--json] [--db PATH] | revoke NAME [--db PATH]   (scopes: read upload triage bot admin)\n"
    "  backup    --to FILE [--db PATH] [--json]           (a consistent copy while the server runs)\n"
    "  restore   --from FILE [--db PATH] [--force] [--json]\n"
    "  retention run [--db PATH] [--config FILE] [--dry-run] [--json] [--raw-files-days N]\n"
    "            [--nightly-runs-days N] [--keep-tag T]... [--webhook-deliveries-days N] [--sent-outbox-days N]\n"
    "  config    check FILE...  |  show [--config FILE] [--json] [serve's flags]  |  keys\n";

}  // namespace

int main(int argc, char** argv) {
  using namespace perftriage::cli;
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string_view command = argv[1];
  const Args args(argv + 2, argv + argc);
  if (command == "serve") return cmd_serve(args, std::cout, std::cerr);
  if (command == "ingest") return cmd_ingest(args, std::cout, std::cerr);
  if (command == "slow") return cmd_slow(args, std::cout, std::cerr);
  if (command == "runs") return cmd_runs(args, std::cout, std::cerr);
  if (command == "classify") return cmd_classify(args, std::cout, std::cerr);
  if (command == "label") return cmd_label(args, std::cout, std::cerr);
  if (command == "compare") return cmd_compare(args, std::cout, std::cerr);
  if (command == "report") return cmd_report(args, std::cout, std::cerr);
  if (command == "token") return cmd_token(args, std::cout, std::cerr);
  if (command == "backup") return cmd_backup(args, std::cout, std::cerr);
  if (command == "restore") return cmd_restore(args, std::cout, std::cerr);
  if (command == "retention") return cmd_retention(args, std::cout, std::cerr);
  if (command == "config") return cmd_config(args, std::cout, std::cerr);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kUsage;
    return 0;
  }
  std::cerr << "perftriage: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
