// Test support: one test body on both store back ends. A TEST_P of a
// fixture derived from StoreBackends runs once on an SQLite file and once on
// a database of a real PostgreSQL cluster (pg_cluster.h); its ctest names
// end in "/sqlite" and "/postgres". A machine without the server skips the
// second (a failure under CI=true, see setup_skip.h).
//
//   class MyTest : public pathscope::test::StoreBackends {};
//   PATHSCOPE_ON_BOTH_BACKENDS(MyTest);
//   TEST_P(MyTest, Something) { const std::string store = new_store("x.db"); ... }
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "db/backend.h"
#include "tests/support/pg_cluster.h"
#include "tests/support/setup_skip.h"
#include "tests/support/temp_dir.h"

namespace pathscope::test {

class StoreBackends : public ::testing::TestWithParam<db::Backend> {
  protected:
    void SetUp() override {
        if (server() && !PgCluster::shared().why_not().empty())
            PATHSCOPE_SKIP("no PostgreSQL test cluster: " + PgCluster::shared().why_not());
    }
    bool server() const { return GetParam() == db::Backend::postgres; }
    /// A new, empty store of the back end under test: the file `name` (or
    /// storeN.db) in this test's folder, or a new database of the cluster.
    std::string new_store(const std::string& name = "") {
        ++stores_;
        if (server()) return PgCluster::shared().new_database();
        return dir_.file(name.empty() ? "store" + std::to_string(stores_) + ".db" : name);
    }
    /// A file in this test's folder (exports, local stores to merge).
    std::string file(const std::string& name) const { return dir_.file(name); }
    const std::filesystem::path& dir() const { return dir_.path(); }

  private:
    TempDir dir_{"backends"};
    int stores_ = 0;
};

inline std::string backend_name(const ::testing::TestParamInfo<db::Backend>& p) {
    return p.param == db::Backend::sqlite ? "sqlite" : "postgres";
}

}  // namespace pathscope::test

#define PATHSCOPE_ON_BOTH_BACKENDS(Fixture)                                                  \
    INSTANTIATE_TEST_SUITE_P(, Fixture,                                                      \
                             ::testing::Values(::pathscope::db::Backend::sqlite,             \
                                               ::pathscope::db::Backend::postgres),          \
                             ::pathscope::test::backend_name)
