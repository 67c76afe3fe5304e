// The store's file format: application id, schema version and migrations.
#pragma once

#include <memory>
#include <string>

#include "db/sqlite.h"

namespace pathscope::db {

/// PRAGMA application_id of every pathscope store ("PSCP").
inline constexpr int32_t kApplicationId = 0x50534350;
/// PRAGMA user_version written by this build.
inline constexpr int kSchemaVersion = 4;

/// Opens a store. read_write creates it if needed, applies forward
/// migrations, switches to WAL and marks runs whose capture process died
/// (same host, pid gone) as aborted. read_only never writes. A file that is
/// not a pathscope store, or was written by a newer pathscope, is refused
/// with a DbError that says so.
std::unique_ptr<Database> open_store(const std::string& path, Database::Mode mode);

/// Marks stale "running" runs as aborted; returns how many. (open_store
/// does this for read_write handles.)
int recover_stale_runs(Database& db);

/// Whether a run marked running was started on this host by a process
/// that no longer exists (killed, crashed).
bool capture_process_gone(const std::string& host, int64_t pid);

/// This machine's host name.
std::string host_name();

}  // namespace pathscope::db
