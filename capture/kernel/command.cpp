#include "capture/kernel/command.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace pathscope::capture {

std::string command_text(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) out += (out.empty() ? "" : " ") + a;
    return out;
}

namespace {

/// Reads both pipes until each is closed (a poll loop, so that a command
/// filling one pipe never blocks on the other).
void drain(int out_fd, int err_fd, std::string& out, std::string& err) {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    int open_fds = 2;
    char buf[4096];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;  // a Ctrl-C during set-up: the run stops after it
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = read(fds[i].fd, buf, sizeof buf);
            if (n > 0) {
                (i == 0 ? out : err).append(buf, static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;
                --open_fds;
            }
        }
    }
}

}  // namespace

bool try_command(const std::vector<std::string>& argv, std::string* out, std::string* error) {
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        close(out_pipe[0]), close(out_pipe[1]);
        throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out_pipe[1]);
    close(err_pipe[1]);
    std::string o, e;
    if (rc == 0) drain(out_pipe[0], err_pipe[0], o, e);
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (rc != 0) {
        if (error) *error = argv[0] + ": cannot start: " + std::strerror(rc);
        return false;
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    while (!e.empty() && e.back() == '\n') e.pop_back();
    if (out) *out = std::move(o);
    if (error) *error = e;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string run_command(const std::vector<std::string>& argv) {
    std::string out, err;
    if (!try_command(argv, &out, &err))
        throw std::runtime_error(command_text(argv) + " failed" + (err.empty() ? "" : ": " + err));
    return out;
}

}  // namespace pathscope::capture
