#include "tests/support/pg_cluster.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace pathscope::test {

namespace fs = std::filesystem;

namespace {

/// Debian's server binaries: /usr/lib/postgresql/<version>/bin, newest first.
std::string server_bin() {
    std::string best;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec))
        if (fs::exists(e.path() / "bin" / "initdb") && e.path().string() > best)
            best = e.path().string();
    return best.empty() ? "" : best + "/bin";
}

std::string quoted(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

PgCluster& PgCluster::shared() {
    static PgCluster cluster;
    return cluster;
}

std::string PgCluster::run_as_owner(const std::string& command) const {
    // initdb and the server refuse to run as root.
    return geteuid() == 0 ? "runuser -u postgres -- sh -c " + quoted(command) : command;
}

PgCluster::PgCluster() {
    bin_ = server_bin();
    if (bin_.empty()) {
        why_not_ = "no PostgreSQL server binaries in /usr/lib/postgresql (scripts/setup.sh "
                   "installs postgresql-15)";
        return;
    }
    char tmpl[] = "/tmp/pathscope_pg.XXXXXX";
    if (!mkdtemp(tmpl)) {
        why_not_ = "cannot make a temporary folder for a cluster";
        return;
    }
    dir_ = tmpl;
    if (geteuid() == 0 && std::system(("chown postgres: " + dir_).c_str()) != 0) {
        why_not_ = "no postgres user to own a cluster (the postgresql-15 package makes it)";
        return;
    }
    const std::string log = dir_ + "/server.log";
    // -N: no fsync of a cluster that lives for one test process (6 s -> 2 s).
    const std::string init = bin_ + "/initdb -N -D " + dir_ + "/data -A trust -U postgres -E " +
                             "SQL_ASCII --locale=C >" + dir_ + "/initdb.log 2>&1";
    // Only the socket in the folder; no TCP port, nothing else on the machine.
    const std::string start_cmd = bin_ + "/pg_ctl -D " + dir_ + "/data -o \"-k " + dir_ +
                                  " -c listen_addresses= -c fsync=off -c max_connections=200\" -l " +
                                  log + " -w start >/dev/null";
    if (std::system(run_as_owner(init).c_str()) != 0) {
        why_not_ = "initdb failed (see " + dir_ + "/initdb.log)";
        return;
    }
    if (std::system(run_as_owner(start_cmd).c_str()) != 0) {
        why_not_ = "the test cluster did not start (see " + log + ")";
        return;
    }
}

void PgCluster::stop() {
    std::system(run_as_owner(bin_ + "/pg_ctl -D " + dir_ + "/data -m fast -w stop >/dev/null")
                    .c_str());
}

void PgCluster::start() {
    std::system(run_as_owner(bin_ + "/pg_ctl -D " + dir_ + "/data -o \"-k " + dir_ +
                             " -c listen_addresses= -c fsync=off -c max_connections=200\" -l " +
                             dir_ + "/server.log -w start >/dev/null")
                    .c_str());
}

PgCluster::~PgCluster() {
    if (dir_.empty()) return;
    if (why_not_.empty())
        std::system(run_as_owner(bin_ + "/pg_ctl -D " + dir_ +
                                 "/data -m immediate -w stop >/dev/null 2>&1")
                        .c_str());
    std::error_code ec;
    fs::remove_all(dir_, ec);
}

int PgCluster::psql(const std::string& database, const std::string& sql) const {
    return std::system(("psql -X -q -v ON_ERROR_STOP=1 -h " + dir_ + " -U postgres -d " +
                        database + " -c " + quoted(sql) + " >/dev/null")
                           .c_str());
}

std::string PgCluster::new_database(const std::string& prefix) {
    if (!why_not_.empty()) throw std::runtime_error(why_not_);
    const std::string name = prefix + "_" + std::to_string(getpid()) + "_" + std::to_string(++databases_);
    if (psql("postgres", "CREATE DATABASE " + name) != 0)
        throw std::runtime_error("cannot create database " + name + " in the test cluster");
    return "postgresql:///" + name + "?host=" + dir_ + "&user=postgres";
}

}  // namespace pathscope::test
