# A throwaway PostgreSQL cluster for shell tests (the shell twin of
# pg_cluster.h): source it, then
#   pg_cluster_start DIR   initdb into DIR/data (as postgres when root), a
#                          Unix socket in DIR only; sets PG_SOCKET=DIR
#   pg_database NAME       creates database NAME, prints its postgresql:// URL
#   pg_cluster_stop DIR / pg_cluster_restart DIR
# A machine without postgresql-15 makes pg_cluster_start return 1 with a
# reason on stderr (the caller skips, see skip.sh).
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)

pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- sh -c "$1"; else sh -c "$1"; fi
}

pg_cluster_start() {
  [ -x "$PG_BIN/initdb" ] || { echo "no PostgreSQL server binaries (scripts/setup.sh installs postgresql-15)" >&2; return 1; }
  mkdir -p "$1"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$1"
  pg_as_owner "$PG_BIN/initdb -N -D $1/data -A trust -U postgres -E SQL_ASCII --locale=C >$1/initdb.log 2>&1" \
    || { echo "initdb failed: see $1/initdb.log" >&2; return 1; }
  PG_SOCKET=$1
  pg_cluster_restart "$1"
}

pg_cluster_restart() {
  pg_as_owner "$PG_BIN/pg_ctl -D $1/data -o \"-k $1 -c listen_addresses= -c fsync=off -c max_connections=200\" -l $1/server.log -w start >/dev/null"
}

pg_cluster_stop() {
  pg_as_owner "$PG_BIN/pg_ctl -D $1/data -m fast -w stop >/dev/null" 2>/dev/null || true
}

pg_database() {
  psql -X -q -h "$PG_SOCKET" -U postgres -d postgres -c "CREATE DATABASE $1" >/dev/null
  echo "postgresql:///$1?host=$PG_SOCKET&user=postgres"
}
