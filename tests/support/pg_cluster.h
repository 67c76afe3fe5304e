// A throwaway PostgreSQL cluster for tests: Debian's postgresql-15 binaries
// make one in a temporary folder (initdb as the postgres user when run as
// root), listening on a Unix socket there only, torn down at exit. Each
// test takes a fresh database of it. A machine without the binaries gets a
// reason to skip (a failure under CI=true, see setup_skip.h).
#pragma once

#include <string>

namespace pathscope::test {

class PgCluster {
  public:
    /// The process's cluster, started on first use (about a second).
    static PgCluster& shared();
    /// Empty when the cluster runs; else why it could not start.
    const std::string& why_not() const { return why_not_; }
    /// A new empty database (SQL_ASCII, as a team's would be made), as a
    /// postgresql:// URL for --db.
    std::string new_database(const std::string& prefix = "t");
    /// The folder holding the socket (host= of a URL).
    const std::string& socket_dir() const { return dir_; }
    /// Runs SQL as the cluster's superuser on `database`; returns psql's status.
    int psql(const std::string& database, const std::string& sql) const;
    /// Stops the server (pg_ctl stop -m fast) and starts it again: the
    /// clients' connections break.
    void stop();
    void start();
    ~PgCluster();

  private:
    PgCluster();
    std::string run_as_owner(const std::string& command) const;
    std::string dir_, bin_, why_not_;
    int databases_ = 0;
};

}  // namespace pathscope::test
