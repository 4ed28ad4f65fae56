#pragma once
// One function per CLI command, each in its own file (server/cli/cmd_<name>.cpp).
// They return the process exit code: 0 ok, 1 the input was refused / nothing found, 2 usage error.
#include <iosfwd>
#include <string>
#include <vector>

namespace perftriage::cli {

using Args = std::vector<std::string>;  // argv after the command name

int cmd_serve(const Args& args, std::ostream& out, std::ostream& err);
int cmd_ingest(const Args& args, std::ostream& out, std::ostream& err);
int cmd_slow(const Args& args, std::ostream& out, std::ostream& err);
int cmd_runs(const Args& args, std::ostream& out, std::ostream& err);
int cmd_classify(const Args& args, std::ostream& out, std::ostream& err);
int cmd_label(const Args& args, std::ostream& out, std::ostream& err);
int cmd_compare(const Args& args, std::ostream& out, std::ostream& err);
int cmd_report(const Args& args, std::ostream& out, std::ostream& err);
int cmd_token(const Args& args, std::ostream& out, std::ostream& err);  // token create | list | revoke
int cmd_backup(const Args& args, std::ostream& out, std::ostream& err);     // server/cli/cmd_backup.cpp
int cmd_restore(const Args& args, std::ostream& out, std::ostream& err);    // server/cli/cmd_backup.cpp
int cmd_retention(const Args& args, std::ostream& out, std::ostream& err);  // retention run
int cmd_config(const Args& args, std::ostream& out, std::ostream& err);  // config check | show | keys

}  // namespace perftriage::cli
