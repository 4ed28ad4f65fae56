#pragma once
// Starts the real `perftriage serve` binary on an ephemeral port and talks HTTP to it.
// Writes need an API token (docs/auth.md): ServerProcess creates an admin token in the database it is given
// (`perftriage token create --db DB --scope admin --json`) before it starts the server, and http_request() sends it
// to that server's port by default. Send no token with the header {"Authorization", ""} (an empty value is not sent),
// or another one with {"Authorization", "Bearer " + token}; create_token() makes more. The HTTP client is compiled
// once (server_process.cpp, the e2e support library), so that no test file instantiates Beast.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace perftriage::testing {

struct HttpReply {
  unsigned status = 0;
  std::string body;
  std::string content_type;
};

// The admin token of each server this process started, by port (ServerProcess fills it in).
inline std::map<unsigned short, std::string>& server_tokens() {
  static std::map<unsigned short, std::string> tokens;
  return tokens;
}

// Runs `binary token create --db DB --name NAME --scope SCOPES [--expires E] --json` and returns the token.
std::string create_token(const std::string& binary, const std::string& db, const std::string& name,
                         const std::string& scopes, const std::string& expires = {});

// One request on a fresh connection; `headers` are sent as given, plus `Authorization: Bearer <the server's admin
// token>` unless `headers` name Authorization themselves (an empty value: no Authorization header at all).
HttpReply http_request(unsigned short port, const std::string& method, const std::string& target,
                       const std::map<std::string, std::string>& headers, const std::string& body = {});

inline HttpReply http_call(unsigned short port, const std::string& method, const std::string& target,
                           const std::string& content_type = {}, const std::string& body = {}) {
  std::map<std::string, std::string> headers;
  if (!content_type.empty()) headers["Content-Type"] = content_type;
  return http_request(port, method, target, headers, body);
}

class ServerProcess {
 public:
  // Runs `binary serve --listen 127.0.0.1:0 <args>` and waits for its "listening on" line. When `args` name the
  // database (--db PATH), an admin token is created in it first (token()), and sent to this server by default.
  ServerProcess(const std::string& binary, std::vector<std::string> args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string db;
      if (args[i] == "--db" && i + 1 < args.size()) db = args[i + 1];
      if (args[i].rfind("--db=", 0) == 0) db = args[i].substr(5);
      if (db.empty()) continue;
      static int serial = 0;
      token_ =
          create_token(binary, db, "test-admin-" + std::to_string(getpid()) + "-" + std::to_string(++serial), "admin");
    }
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      std::vector<std::string> all{binary, "serve", "--listen", "127.0.0.1:0"};
      all.insert(all.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : all) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    out_ = fdopen(out[0], "r");
    char line[512];
    while (fgets(line, sizeof line, out_)) {
      std::string s(line);
      const auto at = s.find("listening on http://127.0.0.1:");
      if (at != std::string::npos) {
        port_ = static_cast<unsigned short>(std::stoi(s.substr(at + 30)));
        if (!token_.empty()) server_tokens()[port_] = token_;
        return;
      }
    }
    throw std::runtime_error("server did not start");
  }
  ~ServerProcess() { stop(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  [[nodiscard]] unsigned short port() const { return port_; }
  // The admin token created for this server ("" when it was started without --db).
  [[nodiscard]] const std::string& token() const { return token_; }

  // SIGTERM and wait; returns the exit status (or -1 when it was killed by a signal).
  int stop(int sig = SIGTERM) {
    if (pid_ <= 0) return exit_status_;
    server_tokens().erase(port_);
    kill(pid_, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    if (out_) fclose(out_);
    out_ = nullptr;
    exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return exit_status_;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  unsigned short port_ = 0;
  int exit_status_ = -1;
  std::string token_;
};

}  // namespace perftriage::testing
