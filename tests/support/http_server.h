#pragma once
// A real HTTP server on the loopback for a C++ test: tests/support/http_servers.py started as
// a child (Debian's nginx serving a folder, or the fault-injecting proxy in front of it), its
// port and request log read from the first line it prints. Stopped by closing its stdin (it
// stops its servers and exits), waited for in the destructor.

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace h5feed::testing {

class HttpServer {
 public:
  // `arguments`: what follows http_servers.py on its command line ("nginx", ROOT).
  explicit HttpServer(const std::vector<std::string>& arguments) {
    int to_child[2];
    int from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) {
      throw std::runtime_error("pipe failed");
    }
    std::vector<std::string> argv = {H5FEED_PYTHON,
                                     std::string(H5FEED_TEST_SUPPORT_DIR) + "/http_servers.py"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<char*> pointers;
    for (std::string& arg : argv) pointers.push_back(arg.data());
    pointers.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    const int spawned =
        posix_spawn(&pid_, pointers[0], &actions, nullptr, pointers.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(to_child[0]);
    ::close(from_child[1]);
    stdin_ = to_child[1];
    if (spawned != 0) throw std::runtime_error("cannot start " + argv[1]);
    FILE* out = ::fdopen(from_child[0], "r");
    char line[4096] = {};
    char log[4096] = {};
    const bool said = out != nullptr && std::fgets(line, sizeof(line), out) != nullptr &&
                      std::sscanf(line, "port %d log %4095s", &port_, log) == 2;
    if (out != nullptr) std::fclose(out);
    log_ = log;
    if (!said) {
      Stop();
      throw std::runtime_error(
          "the test server did not start (is nginx installed? "
          "scripts/install-deps.sh)");
    }
  }
  ~HttpServer() { Stop(); }
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  std::string Url(const std::string& name) const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + name;
  }
  // For the proxy (fault_proxy.py): changes its settings ("faults=reset:0.1&limit=5",
  // "rtt_ms=50", "" for none) and returns its counters as JSON text.
  std::string Control(const std::string& query) const {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      if (fd >= 0) ::close(fd);
      throw std::runtime_error("cannot reach the test proxy");
    }
    const std::string request =
        "GET /__proxy/set?" + query + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    (void)!::write(fd, request.data(), request.size());
    std::string answer;
    char buffer[4096];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof(buffer))) > 0;) answer.append(buffer, got);
    ::close(fd);
    const size_t body = answer.find("\r\n\r\n");
    return body == std::string::npos ? "" : answer.substr(body + 4);
  }

  // The requests served so far: "METHOD URI RANGE STATUS BYTES CONNECTION" each (nginx's
  // access log). nginx writes a request's line after its response has gone out, so a client
  // may have its bytes before the line is there, later still on a loaded machine: the log is
  // read until it holds at least `expected` lines (at most 10 s) and then has not grown for
  // 100 ms. A count that never reaches `expected` is returned as it is, for the test to fail.
  std::vector<std::string> Requests(size_t expected = 0) const {
    std::vector<std::string> lines = ReadLog();
    for (int waited = 0; waited < 100; ++waited) {
      ::usleep(100'000);
      std::vector<std::string> again = ReadLog();
      if (again.size() == lines.size() && lines.size() >= expected) break;
      lines = std::move(again);
    }
    return lines;
  }

 private:
  std::vector<std::string> ReadLog() const {
    std::vector<std::string> lines;
    std::ifstream in(log_);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  void Stop() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
    if (pid_ > 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

  pid_t pid_ = -1;
  int stdin_ = -1;
  int port_ = 0;
  std::string log_;
};

}  // namespace h5feed::testing
