#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for rowsim's pg-check tests.
#   .ci/pg-cluster.sh start   → initdb into a temp dir, start on a loopback port, print `export ROWSIM_PG_URL=…`
#                               and `export ROWSIM_PG_PW_URL=…`
#   .ci/pg-cluster.sh stop    → stop it and remove the temp dir
#   .ci/pg-cluster.sh install → install Debian's postgresql package when initdb is missing (start does too)
# With ROWSIM_PG_CPU_LOG=FILE, stop first appends the server's CPU seconds to FILE (for test/budgets.json).
# Every role logs in without a password (trust) except rowsim_pw, which must give its password
# (scram-sha-256 over TCP): the tests of pg-check's password handling connect as that role
# (ROWSIM_PG_PW_URL carries the password, which is random per cluster).
# State (data dir, port) lives in ${ROWSIM_PG_STATE:-/tmp/rowsim-pg-cluster.state}; the port is the first
# free one from ${ROWSIM_PG_PORT:-54329} on (70 tried). Installs Debian's postgresql package when initdb
# is missing. Runs the server as the postgres user when started as root.
set -euo pipefail
STATE="${ROWSIM_PG_STATE:-/tmp/rowsim-pg-cluster.state}"
PW_ROLE=rowsim_pw

find_bin() {
  local b
  for b in "$(command -v pg_ctl 2>/dev/null || true)" /usr/lib/postgresql/*/bin/pg_ctl; do
    # The real folder, not that of a symlink to pg_ctl: psql is looked up beside it.
    if [ -n "$b" ] && [ -x "$b" ]; then dirname "$(readlink -f "$b")"; return 0; fi
  done
  return 1
}

as_pg() {
  if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

free_port() {
  local p from=${ROWSIM_PG_PORT:-54329}
  for p in $(seq "$from" $((from + 69))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  echo "no free port in $from..$((from + 69))" >&2
  return 1
}

install() {
  local bin
  if ! bin=$(find_bin); then
    echo "pg-cluster: installing postgresql (Debian package)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    bin=$(find_bin)
  fi
  echo "$bin"
}

start() {
  if [ -f "$STATE" ]; then
    # shellcheck disable=SC1090
    . "$STATE"
    if [ -n "${PGDATA_DIR:-}" ] && [ -f "$PGDATA_DIR/postmaster.pid" ]; then
      print_urls "$PGPORT_USED" "${PW_PASSWORD:-}"
      return 0
    fi
  fi
  local bin
  bin=$(install)
  local dir port
  dir=$(mktemp -d /tmp/rowsim-pg.XXXXXX)
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir"; fi
  port=$(free_port)
  as_pg "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
  # autovacuum off: the tests control every VACUUM, so page counts are deterministic.
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c autovacuum=off -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >&2 || { cat "$dir/server.log" >&2; exit 1; }
  printf 'PGDATA_DIR=%s\nPGPORT_USED=%s\nPGBIN=%s\nPGTMP=%s\n' "$dir/data" "$port" "$bin" "$dir" >"$STATE"
  local pw
  pw=$(add_password_role "$bin" "$dir" "$port") || { echo "pg-cluster: could not create the role $PW_ROLE (see above)" >&2; exit 1; }
  printf 'PW_ROLE=%s\nPW_PASSWORD=%s\n' "$PW_ROLE" "$pw" >>"$STATE"
  add_pgstattuple "$bin" "$dir" "$port" || { echo "pg-cluster: could not create the extension pgstattuple (Debian's postgresql package ships it: see above)" >&2; exit 1; }
  print_urls "$port" "$pw"
}

# pg-check reads live and dead tuples and free space with pgstattuple (contrib): in template1, so that
# every database the tests create has it, and in postgres.
add_pgstattuple() {
  local bin=$1 dir=$2 port=$3 db
  for db in template1 postgres; do
    as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d "$db" \
      -c "CREATE EXTENSION IF NOT EXISTS pgstattuple" >/dev/null || return 1
  done
}

# The role that must authenticate with scram-sha-256 over TCP. Its pg_hba line goes before initdb's
# trust lines (the first matching line wins); the password is random, hex so it needs no URL escaping.
add_password_role() {
  local bin=$1 dir=$2 port=$3 pw hba
  pw="pw$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  hba="$dir/data/pg_hba.conf"
  # (called in $(…), where set -e does not hold: each step returns on failure)
  as_pg sh -c "{ echo 'host all $PW_ROLE 127.0.0.1/32 scram-sha-256'; cat '$hba'; } >'$hba.new' && mv '$hba.new' '$hba'" || return 1
  as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d postgres \
    -c "CREATE ROLE $PW_ROLE LOGIN SUPERUSER PASSWORD '$pw'" -c "SELECT pg_reload_conf()" >/dev/null || return 1
  echo "$pw"
}

print_urls() {
  echo "export ROWSIM_PG_URL=postgres://postgres@127.0.0.1:$1/postgres"
  if [ -n "$2" ]; then echo "export ROWSIM_PG_PW_URL=postgres://$PW_ROLE:$2@127.0.0.1:$1/postgres"; fi
}

# The server's CPU seconds so far (the postmaster, its children now, and those that have ended): time(1)
# on a test file does not count them, since the server is not the file's child. One line, "pg_server_cpu_s N".
server_cpu() {
  local pm t f pid
  pm=$(head -1 "$PGDATA_DIR/postmaster.pid") || return 1
  f=($(sed 's/^.*) //' "/proc/$pm/stat")) || return 1
  t=$((f[11] + f[12] + f[13] + f[14]))
  for pid in $(pgrep -P "$pm"); do
    if f=($(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null)); then t=$((t + f[11] + f[12])); fi
  done
  echo "pg_server_cpu_s $(awk -v t="$t" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }')"
}

stop() {
  [ -f "$STATE" ] || return 0
  # shellcheck disable=SC1090
  . "$STATE"
  if [ -n "${ROWSIM_PG_CPU_LOG:-}" ]; then server_cpu >>"$ROWSIM_PG_CPU_LOG" || true; fi
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w stop >&2 || true
  rm -rf "$PGTMP"
  rm -f "$STATE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  install) install >/dev/null ;;
  *) echo "usage: $0 start|stop|install" >&2; exit 2 ;;
esac
