#include "tests/bench/peer_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/bench/bench_clock.h"

extern char** environ;

namespace pathscope::bench {

namespace {
/// The last line of `text` that is not blank (a peer's reason for exiting).
std::string last_line(const std::string& text) {
    std::istringstream in(text);
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    return last;
}

int shell_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}
}  // namespace

PeerProcess::PeerProcess(const std::vector<std::string>& argv, std::string log)
    : log_(std::move(log)) {
    std::ofstream(log_, std::ios::trunc);  // exists before the peer starts, for wait_for
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = posix_spawnp(&pid_, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        pid_ = -1;
        throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc) +
                                 " (give its path with the option named in --help)");
    }
}

PeerProcess::~PeerProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
}

bool PeerProcess::exited(int* status) {
    if (pid_ <= 0) return true;
    if (waitpid(pid_, status, WNOHANG) != pid_) return false;
    pid_ = -1;
    return true;
}

std::string PeerProcess::output() const {
    std::ifstream in(log_);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void PeerProcess::wait_for(const std::regex& ready, double timeout_s, const std::string& what) {
    const auto t0 = Clock::now();
    std::ifstream in(log_);
    std::string line, partial;
    while (true) {
        // Read what has been written since; a line without its newline yet
        // is kept until the rest arrives.
        while (std::getline(in, line)) {
            if (in.eof()) {
                partial += line;
                break;
            }
            if (std::regex_search(partial + line, ready)) return;
            partial.clear();
        }
        in.clear();
        int status = 0;
        if (exited(&status))
            throw std::runtime_error(what + " exited (status " +
                                     std::to_string(shell_status(status)) +
                                     ") before it started forwarding, last saying \"" +
                                     last_line(output()) + "\"; see " + log_);
        if (seconds_since(t0) > timeout_s)
            throw std::runtime_error(what + " did not start forwarding within " +
                                     std::to_string(static_cast<int>(timeout_s)) + " s; see " +
                                     log_);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

int PeerProcess::stop(double timeout_s) {
    int status = 0;
    if (exited(&status)) return shell_status(status);
    kill(pid_, SIGINT);
    const auto t0 = Clock::now();
    while (!exited(&status)) {
        if (seconds_since(t0) > timeout_s) {
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            pid_ = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return shell_status(status);
}

}  // namespace pathscope::bench
