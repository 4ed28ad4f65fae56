#include "server/bot/github_names.hpp"

#include <algorithm>

#include "common/utf8.hpp"

namespace perftriage::server {
namespace {

constexpr std::size_t kMaxOwnerChars = 39;
constexpr std::size_t kMaxRepoNameChars = 100;
constexpr std::size_t kMaxLabelChars = 50;

constexpr bool is_alnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_owner(std::string_view owner) noexcept {
  if (owner.empty() || owner.size() > kMaxOwnerChars || owner.front() == '-' || owner.back() == '-') return false;
  for (std::size_t i = 0; i < owner.size(); ++i) {
    if (is_alnum(owner[i])) continue;
    if (owner[i] != '-' || owner[i - 1] == '-') return false;
  }
  return true;
}

bool is_repo_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > kMaxRepoNameChars || name == "." || name == "..") return false;
  for (char c : name) {
    if (!is_alnum(c) && c != '.' && c != '-' && c != '_') return false;
  }
  return true;
}

}  // namespace

bool is_github_repo(std::string_view repo) noexcept {
  const auto slash = repo.find('/');
  if (slash == std::string_view::npos) return false;
  return is_owner(repo.substr(0, slash)) && is_repo_name(repo.substr(slash + 1));
}

bool is_github_label(std::string_view name) noexcept { return !name.empty() && utf8_chars(name) <= kMaxLabelChars; }

bool is_commit_sha(std::string_view sha) noexcept {
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  return sha.size() >= 7 && sha.size() <= 40 && std::all_of(sha.begin(), sha.end(), hex);
}

}  // namespace perftriage::server
