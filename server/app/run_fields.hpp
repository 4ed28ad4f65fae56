#pragma once
// The fields of an upload that order or name a run, checked before anything is stored: its time (runs sort by it, so
// a time in the future would pin a run as the platform's newest), its key (a path segment of /api/v1/runs/{key}) and
// its platform. Pure functions: the caller's clock comes in as `now`.
#include <ctime>
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace perftriage::server {

// RFC 3339 (`2026-10-01T03:00:00Z`, `2026-10-01T05:00:00+02:00`, fractions of a second dropped) or a date alone
// (`2026-10-01`, midnight UTC), as the one form every time column holds: "YYYY-MM-DDTHH:MM:SSZ", in UTC. "" stays ""
// (the store takes the time of the upload). Refused (invalid_input, code bad_created_at, column created_at): any other
// form, a date that does not exist, a time before 2000 or more than a day after `now`.
Result<std::string> normalize_created_at(std::string_view text, std::time_t now);

// A run key: 1 to 128 printable ASCII characters, none of / \ ? # % or a space (it is a path segment, a CLI argument
// and a file name in reports). Refused: invalid_input, code bad_run, column run.
Result<void> check_run_key(std::string_view key);
// A platform: 1 to 64 characters of the same kind. Refused: invalid_input, code bad_platform, column platform.
Result<void> check_platform(std::string_view platform);

}  // namespace perftriage::server
