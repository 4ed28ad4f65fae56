#include <ostream>

#include "server/cli/commands.hpp"

namespace perftriage::cli {

int cmd_report(const Args&, std::ostream&, std::ostream& err) {
  err << "perftriage: 'report' is not implemented yet\n";
  return 2;
}

}  // namespace perftriage::cli
