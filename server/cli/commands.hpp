#pragma once
// One file per command (server/cli/cmd_<name>.cpp); each declares its subcommand, options and action on the one
// CLI11 App that server/cli/cli.cpp builds.
#include <CLI/CLI.hpp>

#include "server/cli/cli_common.hpp"

namespace perftriage::cli {

void add_serve(const Command& cmd);  // serve: the settings table's flags (server/cli/settings_flags.hpp)
void add_ingest(const Command& cmd);
void add_slow(const Command& cmd);
void add_runs(const Command& cmd);  // runs | runs delete KEY
void add_classify(const Command& cmd);
void add_label(const Command& cmd);
void add_label_eval(const Command& cmd);  // label-eval: the labeler against a tracker's labels
void add_compare(const Command& cmd);
void add_report(const Command& cmd);
void add_token(const Command& cmd);          // token create | list | revoke
void add_backup(const Command& cmd);         // server/cli/cmd_backup.cpp
void add_restore(const Command& cmd);        // server/cli/cmd_backup.cpp
void add_retention(const Command& cmd);      // retention run
void add_config(const Command& cmd);         // config check | show | keys
void add_triage(const Command& cmd);         // triage list | set
void add_explain(const Command& cmd);        // explain PLATFORM SUITE DTYPE MODE MODEL
void add_tracker(const Command& cmd);        // tracker sync | export | train
void add_tracker_train(const Command& cmd);  // tracker train (server/cli/cmd_tracker_train.cpp), from add_tracker
void add_migrate(const Command& cmd);        // migrate --from sqlite:PATH --to postgresql://...

}  // namespace perftriage::cli
