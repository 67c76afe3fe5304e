// Which kind of store a connection speaks to: an SQLite file or a
// PostgreSQL server. The schema and the SQL are written once; each back end
// has a few words of its own (db/tables.cpp, db/table_sql.h).
#pragma once

namespace pathscope::db {

enum class Backend { sqlite, postgres };

}  // namespace pathscope::db
