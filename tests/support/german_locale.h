// Test support: the process under LC_ALL=de_DE.UTF-8 (decimal comma) for a
// scope, then back to "C". scripts/setup.sh test generates the locale; a
// test without it skips (a failure under CI=true).
#pragma once

#include <clocale>
#include <string>

namespace pathscope::test {

class GermanLocale {
  public:
    GermanLocale() : ok_(std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr) {}
    ~GermanLocale() { std::setlocale(LC_ALL, "C"); }
    GermanLocale(const GermanLocale&) = delete;
    GermanLocale& operator=(const GermanLocale&) = delete;
    /// Whether the locale is in force (and its decimal point is a comma).
    bool ok() const { return ok_ && std::string(std::localeconv()->decimal_point) == ","; }

  private:
    bool ok_;
};

}  // namespace pathscope::test

/// Inside a test: the German locale for the rest of it, or a skip.
#define PATHSCOPE_GERMAN_LOCALE(name)                                                    \
    ::pathscope::test::GermanLocale name;                                                \
    if (!name.ok())                                                                      \
    PATHSCOPE_SKIP_UNLESS_SETUP("no de_DE.UTF-8 locale (locale-gen generates it)")
