#!/usr/bin/env bash
# A throw-away MariaDB server for rowsim's mysql-check tests (the twin of .ci/pg-cluster.sh).
#   .ci/mariadb-cluster.sh start   → mariadb-install-db into a temp dir, start mariadbd on a loopback port,
#                                    print `export ROWSIM_MYSQL_URL=mysql://rowsim:PASSWORD@127.0.0.1:PORT/`
#   .ci/mariadb-cluster.sh stop    → stop it and remove the temp dir
#   .ci/mariadb-cluster.sh install → install Debian's mariadb-server package when mariadbd is missing
# The server listens on 127.0.0.1 only, with its socket in its own folder; the user rowsim (all privileges:
# mysql-check reads INNODB_BUFFER_PAGE, which needs PROCESS, and sets innodb counters) has a password
# drawn at random for each server. Persistent statistics on, a buffer pool that holds the test tables.
# State (folder, port, password) lives in ${ROWSIM_MYSQL_STATE:-/tmp/rowsim-mariadb.state}; the port is the
# first free one from ${ROWSIM_MYSQL_PORT:-33069} on (70 tried). Runs the server as the mysql user when
# started as root.
set -euo pipefail
STATE="${ROWSIM_MYSQL_STATE:-/tmp/rowsim-mariadb.state}"
USER_NAME=rowsim

find_bin() {
  local b
  for b in "$(command -v mariadbd 2>/dev/null || true)" /usr/sbin/mariadbd /usr/sbin/mysqld; do
    if [ -n "$b" ] && [ -x "$b" ]; then echo "$b"; return 0; fi
  done
  return 1
}

free_port() {
  local p from=${ROWSIM_MYSQL_PORT:-33069}
  for p in $(seq "$from" $((from + 69))); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  echo "no free port in $from..$((from + 69))" >&2
  return 1
}

install() {
  local bin
  if ! bin=$(find_bin); then
    echo "mariadb-cluster: installing mariadb-server (Debian package)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server >&2
    bin=$(find_bin)
  fi
  echo "$bin"
}

client() {
  local sock=$1
  shift
  mariadb --no-defaults -S "$sock" -u root "$@"
}

start() {
  if [ -f "$STATE" ]; then
    # shellcheck disable=SC1090
    . "$STATE"
    if [ -n "${MY_PID_FILE:-}" ] && [ -f "$MY_PID_FILE" ]; then
      print_url "$MY_PORT" "$MY_PASSWORD"
      return 0
    fi
  fi
  local bin dir port run_as=()
  bin=$(install)
  dir=$(mktemp -d /tmp/rowsim-mariadb.XXXXXX)
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then
    chown mysql:mysql "$dir"
    run_as=(--user=mysql)
  fi
  # Temporary tables in a folder of the server's own: two servers starting at once (a test file per core) must not
  # meet in /tmp (mariadb-install-db's bootstrap failed once on another's '#sql-temptable-…').
  mkdir -p "$dir/tmp"
  if [ "$(id -u)" = 0 ]; then chown mysql:mysql "$dir/tmp"; fi
  port=$(free_port)
  # Root logs in on the socket only (unix_socket as the OS user that runs this script).
  mariadb-install-db --no-defaults "${run_as[@]}" --datadir="$dir/data" --auth-root-authentication-method=socket \
    --auth-root-socket-user="$(id -un)" --skip-test-db --tmpdir="$dir/tmp" >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 1; }
  # Durability off (throw-away data); persistent statistics on (mysql.innodb_index_stats after ANALYZE).
  "$bin" --no-defaults "${run_as[@]}" --datadir="$dir/data" --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" \
    --tmpdir="$dir/tmp" --port="$port" --bind-address=127.0.0.1 --log-error="$dir/server.log" --skip-log-bin \
    --innodb-buffer-pool-size=256M --innodb-log-file-size=64M --innodb-stats-persistent=ON \
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --sync-binlog=0 --character-set-server=utf8mb4 \
    --collation-server=utf8mb4_bin --performance-schema=OFF >/dev/null 2>&1 &
  printf 'MY_DIR=%s\nMY_PORT=%s\nMY_PID_FILE=%s\nMY_SOCKET=%s\n' "$dir" "$port" "$dir/mysqld.pid" "$dir/mysqld.sock" >"$STATE"
  local i
  for i in $(seq 1 120); do
    if [ -S "$dir/mysqld.sock" ] && client "$dir/mysqld.sock" -e 'SELECT 1' >/dev/null 2>&1; then break; fi
    if [ "$i" = 120 ]; then cat "$dir/server.log" >&2; echo "mariadb-cluster: the server did not start in 60 s" >&2; exit 1; fi
    sleep 0.5
  done
  local pw
  pw="pw$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"
  client "$dir/mysqld.sock" -e "CREATE USER '$USER_NAME'@'127.0.0.1' IDENTIFIED BY '$pw'; GRANT ALL PRIVILEGES ON *.* TO '$USER_NAME'@'127.0.0.1'" ||
    { echo "mariadb-cluster: could not create the user $USER_NAME (see above)" >&2; exit 1; }
  printf 'MY_PASSWORD=%s\n' "$pw" >>"$STATE"
  print_url "$port" "$pw"
}

print_url() {
  echo "export ROWSIM_MYSQL_URL=mysql://$USER_NAME:$2@127.0.0.1:$1/"
}

stop() {
  [ -f "$STATE" ] || return 0
  # shellcheck disable=SC1090
  . "$STATE"
  local pid i
  if [ -f "$MY_PID_FILE" ]; then
    pid=$(cat "$MY_PID_FILE")
    kill "$pid" 2>/dev/null || true
    for i in $(seq 1 120); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
  fi
  rm -rf "$MY_DIR"
  rm -f "$STATE"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  install) install >/dev/null ;;
  *) echo "usage: $0 start|stop|install" >&2; exit 2 ;;
esac
