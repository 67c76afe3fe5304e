// Test support: a skip for a tool or file that scripts/setup.sh provides.
// On a developer's machine a missing one skips (ctest shows it as skipped);
// under CI=true, where setup.sh has just run, it is a failure: a green CI
// must never hide a missing install step.
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

/// Skips (fails under CI=true) with `why`: a stream expression.
#define PATHSCOPE_SKIP_UNLESS_SETUP(why)                                                      \
    do {                                                                                      \
        if (::pathscope::test::in_ci())                                                       \
            GTEST_FAIL() << why << " (CI=true: scripts/setup.sh should have provided it)";    \
        else                                                                                  \
            GTEST_SKIP() << why;                                                              \
    } while (0)
