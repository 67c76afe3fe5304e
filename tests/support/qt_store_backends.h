// Test support for QtTest: the same test functions on both store back ends.
// ctest runs each function of a QtTest binary with its stores as SQLite
// files; the functions that qt_discover_tests(... SERVER_STORE fn ...) names
// run once more, as "TARGET.fn/postgres", with PATHSCOPE_TEST_STORE=postgres:
// new_test_store() then hands out databases of a real PostgreSQL cluster
// (pg_cluster.h). Call PATHSCOPE_QT_NEED_STORE() first in initTestCase()
// or init(): without a cluster the server run skips (fails under CI=true).
#pragma once

#include <QtGlobal>
#include <QTest>

#include <filesystem>
#include <string>

#include "tests/support/pg_cluster.h"

namespace pathscope::test {

/// True in the "/postgres" run of a test function.
inline bool server_store_run() { return qgetenv("PATHSCOPE_TEST_STORE") == "postgres"; }

/// A new, empty store: the file DIR/NAME (removed first, with its WAL), or
/// a new database of the test cluster in the server run.
inline std::string new_test_store(const std::filesystem::path& dir, const std::string& name) {
    if (server_store_run()) return PgCluster::shared().new_database("gui");
    const std::string path = (dir / name).string();
    for (const char* tail : {"", "-wal", "-shm"}) std::filesystem::remove(path + tail);
    return path;
}

/// Why this run cannot have its stores, or empty.
inline QByteArray why_no_store() {
    if (!server_store_run() || PgCluster::shared().why_not().empty()) return {};
    return QByteArray::fromStdString("no PostgreSQL test cluster: " + PgCluster::shared().why_not());
}

}  // namespace pathscope::test

/// A skip without the run's stores (a failure under CI=true, as PATHSCOPE_SKIP).
#define PATHSCOPE_QT_SKIP(why)                                                  \
    do {                                                                        \
        if (qgetenv("CI") == "true") QFAIL((why) + " (CI=true: a skip is a failure)"); \
        QSKIP(why);                                                             \
    } while (0)

#define PATHSCOPE_QT_NEED_STORE()                                            \
    do {                                                                     \
        const QByteArray why_ = ::pathscope::test::why_no_store();           \
        if (!why_.isEmpty()) PATHSCOPE_QT_SKIP(why_);                        \
    } while (0)
