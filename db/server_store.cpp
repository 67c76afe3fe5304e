// A store on a PostgreSQL server: the same tables as a file store (made
// from db/tables.h in the server's dialect), with the file header's two
// numbers in a table of their own (pathscope_store: application id and
// schema version) and a sequence that every committed write advances
// (pathscope_changes: what PRAGMA data_version is to a file store).
#include "db/server_store.h"

#include <algorithm>

#include "db/schema.h"
#include "db/tables.h"

namespace pathscope::db {

namespace {

struct ServerHeader {
    bool made = false;  ///< pathscope_store exists
    int64_t app = 0, version = 0, tables = 0;
};

ServerHeader read_server_header(const Database& db) {
    ServerHeader h;
    h.tables = db.scalar(
        "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()");
    h.made = db.scalar("SELECT count(*) FROM information_schema.tables WHERE table_schema = "
                       "current_schema() AND table_name = 'pathscope_store'") > 0;
    if (!h.made) return h;
    Statement s = db.prepare("SELECT application_id, schema_version FROM pathscope_store");
    if (s.step()) h.app = s.i64(0), h.version = s.i64(1);
    return h;
}

void check_header(const ServerHeader& h, const std::string& name) {
    if (!h.made && h.tables > 0)
        throw DbError(name + ": not a pathscope store (the database holds " +
                      std::to_string(h.tables) +
                      " tables of another application); give --db an empty database or a "
                      "pathscope store");
    if (!h.made) return;
    if (h.app != kApplicationId)
        throw DbError(name + ": not a pathscope store (pathscope_store says application " +
                      hex_id(h.app) + ", pathscope's is " + hex_id(kApplicationId) + ")");
    if (h.version > kSchemaVersion)
        throw DbError(name + ": written by a newer pathscope (schema version " +
                      std::to_string(h.version) + ", this build reads up to " +
                      std::to_string(kSchemaVersion) + "); upgrade pathscope to read it");
}

/// Brings a server store of an older schema up to this build's. Every
/// migration so far adds tables and columns (with defaults), so the server's
/// is the same for all of them: whatever the tables lack is added, under
/// the store's lock, in one transaction.
void migrate_server(Database& db) {
    Transaction tx(db);
    db.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kApplicationId) + ")");
    if (read_server_header(db).version < kSchemaVersion) {
        for (const TableShape& t : table_shapes(Backend::postgres)) {
            Statement cols = db.prepare(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                "current_schema() AND table_name = ?1");
            cols.bind(1, t.name);
            std::vector<std::string> have;
            while (cols.step()) have.push_back(cols.text(0));
            if (have.empty()) {
                db.exec(t.create_sql);
                continue;
            }
            for (const auto& [column, decl] : t.columns)
                if (std::find(have.begin(), have.end(), column) == have.end())
                    db.exec("ALTER TABLE " + t.name + " ADD COLUMN \"" + column + "\" " + decl);
        }
        db.exec("UPDATE pathscope_store SET schema_version = " + std::to_string(kSchemaVersion));
    }
    tx.commit();
}

}  // namespace

std::string server_schema_sql() {
    return create_schema_sql(Backend::postgres) +
           "CREATE TABLE pathscope_store (application_id BIGINT NOT NULL, schema_version BIGINT "
           "NOT NULL);\n"
           "INSERT INTO pathscope_store VALUES (" +
           std::to_string(kApplicationId) + ", " + std::to_string(kSchemaVersion) +
           ");\n"
           "CREATE SEQUENCE pathscope_changes;\n";
}

void check_server_store(const std::string& url) {
    const Database db(url, Database::Mode::read_only);
    check_header(read_server_header(db), db.path());
}

namespace {

/// A reader may not migrate: an older store is read by a writer's open first.
void refuse_old_for_reader(const ServerHeader& h, const std::string& name) {
    if (h.made && h.version < kSchemaVersion)
        throw DbError(name + ": schema version " + std::to_string(h.version) +
                      " of a server store needs a migration to " +
                      std::to_string(kSchemaVersion) +
                      "; open it once with the store's writer role (pathscope list --db URL "
                      "as the writer migrates it)");
}

}  // namespace

std::unique_ptr<Database> open_server_store(const std::string& url, Database::Mode mode,
                                            Create create) {
    auto db = std::make_unique<Database>(url, mode);
    ServerHeader h = read_server_header(*db);
    check_header(h, db->path());
    const bool may_create = mode == Database::Mode::read_write && create == Create::if_new;
    if (!h.made && !may_create)
        throw DbError(db->path() +
                      ": empty database, not a pathscope store yet (capture into it first, or "
                      "pathscope push a file store to it)");
    if (!h.made) {
        // Two hosts may make the store at once: one does, under a lock.
        Transaction tx(*db);
        db->exec("SELECT pg_advisory_xact_lock(" + std::to_string(kApplicationId) + ")");
        h = read_server_header(*db);
        if (!h.made) db->exec(server_schema_sql());
        tx.commit();
        check_header(read_server_header(*db), db->path());
    }
    if (mode == Database::Mode::read_write && h.made && h.version < kSchemaVersion) try {
            migrate_server(*db);
        } catch (const DbError& e) {
            // A reader's role may not alter tables: it reads as a reader does.
            if (e.code() != SQLITE_READONLY) throw;
        }
    refuse_old_for_reader(read_server_header(*db), db->path());
    // Marking dead captures is a writer's job: a reader's role may not, and
    // the next writer's open does it.
    if (mode == Database::Mode::read_write) try {
            recover_stale_runs(*db);
        } catch (const DbError& e) {
            if (e.code() != SQLITE_READONLY) throw;
        }
    return db;
}

// Advisory locks of two int4 keys: "path" and the run id (a space apart
// from the bigint key that guards the store's creation).
constexpr int64_t kRunLockClass = 0x70617468;

std::string hold_run_sql(int64_t id) {
    return "SELECT pg_advisory_lock(" + std::to_string(kRunLockClass) + ", " + std::to_string(id) +
           ")";
}

std::string running_runs_sql() {
    return "SELECT id, host, pid, (EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = "
           "'advisory' AND l.classid::bigint = " + std::to_string(kRunLockClass) +
           " AND l.objid::bigint = r.id AND l.objsubid = 2))::int FROM runs r WHERE status = "
           "'running'";
}

}  // namespace pathscope::db
