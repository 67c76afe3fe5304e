// Test support: the files a user may hand pathscope as a store that are not
// one it can use: a store cut short, random bytes, another application's
// SQLite database, and a store of a newer schema. Each is made from a real
// store (closed, so that its pages are all in the main file).
#pragma once

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <random>
#include <string>

#include "db/schema.h"
#include "db/connection.h"

namespace pathscope::test {

enum class BadStore { truncated, random_bytes, foreign, newer };

struct BadStoreKind {
    BadStore kind;
    const char* name;
    const char* reason;  ///< what the refusal says is wrong
};

/// gtest prints a parameter by its name (ctest names stay the same build to build).
inline void PrintTo(const BadStoreKind& k, std::ostream* os) { *os << k.name; }

inline constexpr std::array<BadStoreKind, 4> kBadStores{{
    {BadStore::truncated, "truncated", "damaged store: it was cut short"},
    {BadStore::random_bytes, "random_bytes", "not a pathscope store (not an SQLite database)"},
    {BadStore::foreign, "foreign", "not a pathscope store (an SQLite database of another application"},
    {BadStore::newer, "newer", "written by a newer pathscope (schema version"},
}};

inline std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Writes a file of `kind` at `out`, from the real store `good` where the
/// kind needs one.
inline void make_bad_store(BadStore kind, const std::string& good, const std::string& out) {
    namespace fs = std::filesystem;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(out + suffix);
    switch (kind) {
        case BadStore::truncated: {
            // Cut inside a page past the first, as a copy that stopped half way.
            const std::string bytes = file_bytes(good);
            std::ofstream(out, std::ios::binary) << bytes.substr(0, bytes.size() / 2 + 123);
            break;
        }
        case BadStore::random_bytes: {
            std::mt19937 rng(19);
            std::string bytes(16384, '\0');
            for (char& c : bytes) c = static_cast<char>(rng());
            std::ofstream(out, std::ios::binary) << bytes;
            break;
        }
        case BadStore::foreign: {
            db::Database raw(out, db::Database::Mode::read_write);
            raw.exec(
                "CREATE TABLE contacts (name TEXT, phone TEXT);"
                "INSERT INTO contacts VALUES ('Ada', '+44 20 7946 0000'), ('Linus', '+358 9 0');"
                "CREATE INDEX contacts_name ON contacts(name);");
            break;
        }
        case BadStore::newer: {
            fs::copy_file(good, out);
            db::Database raw(out, db::Database::Mode::read_write);
            raw.exec("PRAGMA user_version = " + std::to_string(db::kSchemaVersion + 1) +
                     "; CREATE TABLE runs_of_the_future (id INTEGER PRIMARY KEY)");
            break;
        }
    }
}

}  // namespace pathscope::test
