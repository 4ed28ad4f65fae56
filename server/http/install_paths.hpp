#pragma once
// Where the installed binary finds its data files (`cmake --install`). The layout is
//   PREFIX/bin/perftriage
//   PREFIX/share/perftriage/web/          the dashboard's assets
//   PREFIX/share/perftriage/taxonomies/   copies of the built-in labeler taxonomies (those are embedded in the
//                                         binary; the files are there to read and to start a custom one from)
// so the data directory is found relative to the executable (/proc/self/exe), which keeps an installed tree
// relocatable (DESTDIR staging, a Docker stage copying /usr/local, a tarball unpacked anywhere).
#include <filesystem>
#include <string_view>
#include <vector>

namespace perftriage::server {

// The dashboard directory: `configured` (--web-dir / [server] web_dir) when not empty; otherwise the first existing
// directory of web_dir_candidates(). Computed once per process for the empty case.
std::filesystem::path resolve_web_dir(std::string_view configured);

// In order: <dir of the executable>/../share/perftriage/web (an installed binary), the source tree's web/ (a binary
// in the build tree: `make run`, the tests), <install prefix at configure time>/share/perftriage/web (an installed
// binary copied elsewhere). Paths that do not exist are included; resolve_web_dir picks the first that does.
std::vector<std::filesystem::path> web_dir_candidates();

}  // namespace perftriage::server
