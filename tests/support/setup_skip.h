// Test support: skips that cannot hide a broken CI.
// On a developer's machine a missing tool, file or privilege skips (ctest
// shows it as skipped); under CI=true (exactly "true", as .ci/run exports it)
// every skip is a failure: scripts/setup.sh has just run there as root, so a
// skip means a missing install step or a machine the suite cannot vouch for.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace pathscope::test {

inline bool in_ci() {
    const char* ci = std::getenv("CI");
    return ci && std::strcmp(ci, "true") == 0;
}

}  // namespace pathscope::test

/// Skips with `why` (a stream expression), or fails under CI=true.
#define PATHSCOPE_SKIP(why)                                                    \
    do {                                                                       \
        if (::pathscope::test::in_ci())                                        \
            GTEST_FAIL() << why << " (CI=true: a skip is a failure)";          \
        else                                                                   \
            GTEST_SKIP() << why;                                               \
    } while (0)

/// The same for what scripts/setup.sh installs: the message says so.
#define PATHSCOPE_SKIP_UNLESS_SETUP(why) \
    PATHSCOPE_SKIP(why << "; scripts/setup.sh installs it")
