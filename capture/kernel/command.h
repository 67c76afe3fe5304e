// Running a system command (ip, sysctl) for the kernel target's set-up,
// with its error text kept for the message that names what failed.
#pragma once

#include <string>
#include <vector>

namespace pathscope::capture {

/// Runs `argv` (argv[0] looked up on PATH) and waits; throws
/// std::runtime_error naming the command and quoting its standard error
/// when it cannot start or exits with a failure. Returns its standard output.
std::string run_command(const std::vector<std::string>& argv);

/// Same, but returns false (and its standard error in `error`) on failure.
bool try_command(const std::vector<std::string>& argv, std::string* out = nullptr,
                 std::string* error = nullptr);

/// "ip -n a link set x up": a command as a shell would show it.
std::string command_text(const std::vector<std::string>& argv);

}  // namespace pathscope::capture
