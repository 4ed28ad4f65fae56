#include "analyzers/compare/text.hpp"

#include <fmt/format.h>

namespace perftriage::analyzers::compare {

std::string fixed(const std::optional<double>& v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : std::string{};
}

std::string percent(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v * 100) : std::string{}; }

}  // namespace perftriage::analyzers::compare
