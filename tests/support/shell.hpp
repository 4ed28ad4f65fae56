#pragma once
// One shell command's standard output and exit status, for the e2e tests that run the real binary.
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace perftriage::testing {

struct ShellResult {
  int status = -1;  // the exit code; -1 when the command did not exit normally
  std::string out;
};

inline ShellResult run_shell(const std::string& cmd) {
  ShellResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace perftriage::testing
