#include "server/cli/args.hpp"

#include <algorithm>
#include <string_view>

namespace perftriage::cli {

namespace {

template <class List>
Result<ParsedArgs> parse(const std::vector<std::string>& argv, const List& with_value, const List& flags) {
  auto in = [](const List& list, std::string_view name) {
    return std::any_of(list.begin(), list.end(), [&](const auto& s) { return name == s; });
  };
  ParsedArgs out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    if (a == "--") {
      out.positionals.insert(out.positionals.end(), argv.begin() + static_cast<std::ptrdiff_t>(i) + 1, argv.end());
      break;
    }
    if (a.size() < 3 || a.substr(0, 2) != "--") {
      out.positionals.emplace_back(a);
      continue;
    }
    std::string name(a.substr(2));
    std::optional<std::string> inline_value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name.resize(eq);
    }
    if (in(with_value, name)) {
      if (inline_value) {
        out.values[name].push_back(*inline_value);
      } else if (i + 1 < argv.size()) {
        out.values[name].push_back(argv[++i]);
      } else {
        return make_error(ErrorKind::invalid_input, "missing_value", "option --" + name + " needs a value");
      }
    } else if (in(flags, name) && !inline_value) {
      out.flags.insert(name);
    } else {
      return make_error(ErrorKind::invalid_input, "unknown_option", "unknown option --" + name);
    }
  }
  return out;
}

}  // namespace

Result<ParsedArgs> parse_args(const std::vector<std::string>& argv, std::initializer_list<const char*> with_value,
                              std::initializer_list<const char*> flags) {
  return parse(argv, with_value, flags);
}

Result<ParsedArgs> parse_args_from(const std::vector<std::string>& argv, const std::vector<std::string>& with_value,
                                   const std::vector<std::string>& flags) {
  return parse(argv, with_value, flags);
}

}  // namespace perftriage::cli
