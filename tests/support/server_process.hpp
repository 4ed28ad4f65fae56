#pragma once
// Starts the real `perftriage serve` binary on an ephemeral port and talks HTTP to it.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
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

// One request on a fresh connection; `headers` are sent as given.
inline HttpReply http_request(unsigned short port, const std::string& method, const std::string& target,
                              const std::map<std::string, std::string>& headers, const std::string& body = {}) {
  namespace beast = boost::beast;
  namespace http = beast::http;
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::resolver resolver(ioc);
  beast::tcp_stream stream(ioc);
  stream.expires_after(std::chrono::seconds(30));
  stream.connect(resolver.resolve("127.0.0.1", std::to_string(port)));
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1");
  for (const auto& [name, value] : headers) req.set(name, value);
  req.body() = body;
  req.prepare_payload();
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(1ull << 30);
  http::read(stream, buffer, parser);
  auto res = parser.release();
  beast::error_code ec;
  stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_both, ec);
  return {static_cast<unsigned>(res.result_int()), res.body(), std::string(res[http::field::content_type])};
}

inline HttpReply http_call(unsigned short port, const std::string& method, const std::string& target,
                           const std::string& content_type = {}, const std::string& body = {}) {
  std::map<std::string, std::string> headers;
  if (!content_type.empty()) headers["Content-Type"] = content_type;
  return http_request(port, method, target, headers, body);
}

class ServerProcess {
 public:
  // Runs `binary serve --listen 127.0.0.1:0 <args>` and waits for its "listening on" line.
  ServerProcess(const std::string& binary, std::vector<std::string> args) {
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
        return;
      }
    }
    throw std::runtime_error("server did not start");
  }
  ~ServerProcess() { stop(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  [[nodiscard]] unsigned short port() const { return port_; }

  // SIGTERM and wait; returns the exit status (or -1 when it was killed by a signal).
  int stop(int sig = SIGTERM) {
    if (pid_ <= 0) return exit_status_;
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
};

}  // namespace perftriage::testing
