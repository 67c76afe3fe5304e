// Opening a store on a PostgreSQL server (a postgresql:// URL): what
// open_store and check_store do for a file, for a server's database.
#pragma once

#include <memory>
#include <string>

#include "db/connection.h"
#include "db/schema.h"

namespace pathscope::db {

/// The tables, the header table and the change sequence of a new server store.
std::string server_schema_sql();

/// open_store for a server: an empty database is made a store when `mode`
/// and `create` allow (under an advisory lock, so two hosts starting at once
/// make it once); a database of another application, or a store of another
/// schema version, is refused with a DbError naming it (without its password).
std::unique_ptr<Database> open_server_store(const std::string& url, Database::Mode mode,
                                            Create create);

/// check_store for a server: connects, and refuses what open_server_store would.
void check_server_store(const std::string& url);

/// A capture on a server store holds a session lock on its run for as long
/// as its connection lives, from whichever host: taken in the transaction
/// that makes the run (so no one sees the run without it), gone when the
/// process ends however it ends. The SQL that takes it for run `id`.
std::string hold_run_sql(int64_t id);

/// The runs marked running: id, host, pid, and whether their capture holds
/// its lock (1) or is gone (0).
std::string running_runs_sql();

}  // namespace pathscope::db
