// The store's file format: application id, schema version and migrations.
#pragma once

#include <memory>
#include <string>

#include "db/connection.h"

namespace pathscope::db {

/// PRAGMA application_id of every pathscope store ("PSCP").
inline constexpr int32_t kApplicationId = 0x50534350;
/// PRAGMA user_version written by this build.
inline constexpr int kSchemaVersion = 10;

/// Whether open_store may make a store of a missing or empty file.
enum class Create { if_new, never };

/// Opens a store. read_write creates it if needed (unless `create` is
/// never), applies forward migrations, switches to WAL and marks runs whose
/// capture process died (same host, pid gone) as aborted. read_only never
/// writes: it reads an older store through a migrated private copy, and
/// shows a dead capture's run as aborted without marking it. A missing
/// or empty file that is not to be made a store, a file that is not a
/// pathscope store, or one written by a newer pathscope, is refused with a
/// DbError that names the file and says so.
std::unique_ptr<Database> open_store(const std::string& path, Database::Mode mode,
                                     Create create = Create::if_new);

/// Refuses, without writing a byte, a file that open_store would refuse
/// for writing: not a pathscope store, damaged (cut short, overwritten), or
/// of a newer schema; each with open_store's message. A missing or empty
/// file passes (a capture makes the store). Verbs that write call it before
/// they start an engine or read an input, so a wrong --db fails at once.
void check_store(const std::string& path);

/// Takes `db` from its user_version up to `to_version` by the shipped
/// migrations, one transaction each. open_store upgrades older stores with
/// it; a new store is made from the tables (db/tables.h) at kSchemaVersion
/// at once, and tests build the stores of older versions with it.
void migrate(Database& db, int to_version);

/// Marks stale "running" runs as aborted; returns how many. (open_store
/// does this for read_write handles.)
int recover_stale_runs(Database& db);

/// Whether a run marked running was started on this host by a process
/// that no longer exists (killed, crashed).
bool capture_process_gone(const std::string& host, int64_t pid);

/// An application id as the README and `sqlite3 FILE 'PRAGMA application_id'`
/// readers compare it: "0x50534350".
std::string hex_id(int64_t id);

/// This machine's host name.
std::string host_name();

}  // namespace pathscope::db
