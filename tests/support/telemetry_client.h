// Test support: a client of DPDK's telemetry socket as dpdk-telemetry.py
// is one (SOCK_SEQPACKET, one message per command, JSON answers).
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace pathscope::test {

/// A client as dpdk-telemetry.py is: SOCK_SEQPACKET, one message per command.
class TelemetryClient {
  public:
    explicit TelemetryClient(const std::string& path) : fd_(socket(AF_UNIX, SOCK_SEQPACKET, 0)) {
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        const timeval timeout{10, 0};  // a test that waits for an answer fails, never hangs
        setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
            const std::string why = std::strerror(errno);
            close(fd_);
            throw std::runtime_error("cannot connect to " + path + ": " + why);
        }
        info_ = receive();
    }
    ~TelemetryClient() { close(fd_); }
    TelemetryClient(const TelemetryClient&) = delete;
    TelemetryClient& operator=(const TelemetryClient&) = delete;
    const nlohmann::json& info() const { return info_; }
    /// Sends `command` and returns the value of its answer ({command: value}).
    nlohmann::json ask(const std::string& command) {
        if (send(fd_, command.data(), command.size(), 0) < 0) throw std::runtime_error("send failed");
        nlohmann::json reply = receive();
        const std::string name = command.substr(0, command.find(','));
        if (!reply.contains(name)) throw std::runtime_error("no '" + name + "' in " + reply.dump());
        return reply[name];
    }

  private:
    nlohmann::json receive() {
        std::string buf(64 * 1024, '\0');
        const ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
        if (n <= 0) throw std::runtime_error("no reply from the telemetry socket");
        buf.resize(static_cast<size_t>(n));
        return nlohmann::json::parse(buf);
    }
    int fd_;
    nlohmann::json info_;
};

}  // namespace pathscope::test
