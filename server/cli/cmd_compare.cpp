#include <ostream>

#include "server/cli/commands.hpp"

namespace perftriage::cli {

int cmd_compare(const Args&, std::ostream&, std::ostream& err) {
  err << "perftriage: 'compare' is not implemented yet\n";
  return 2;
}

}  // namespace perftriage::cli
