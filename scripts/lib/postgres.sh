# A throwaway PostgreSQL server for the tests (sourced; bash). og_pg_start makes a
# cluster in a temporary folder (initdb, run as a non-root user: PostgreSQL refuses
# root), listening on 127.0.0.1 only at a free port, with password logins over TCP,
# and exports OBJECTGRAPH_TEST_POSTGRES_URL (the superuser's URL); og_pg_stop stops
# it and removes the folder. Nothing reaches another host. PostgreSQL comes from
# Debian's `postgresql` package, installed by og_ensure_postgres when missing.

og_pg_dir=""
og_pg_user=""

# The folder of PostgreSQL's server programs (the newest installed), or nothing.
og_pg_bindir() {
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)"
}

# Whether libpq's shared library is installed (by file: ldconfig may not be on PATH).
og_have_libpq() {
  local f
  for f in /usr/lib/*/libpq.so.5 /usr/lib64/libpq.so.5 /usr/lib/libpq.so.5 /lib/*/libpq.so.5; do
    [ -e "$f" ] && return 0
  done
  return 1
}

og_ensure_postgres() {
  if [ -z "$(og_pg_bindir)" ] || ! og_have_libpq; then
    og_apt_install postgresql libpq5 || return 1
  fi
  [ -n "$(og_pg_bindir)" ]
}

# Runs a command as the cluster's owner.
og_pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$og_pg_user" -- "$@"
  else
    "$@"
  fi
}

og_pg_start() {
  local bin port password
  bin=$(og_pg_bindir) || return 1
  [ -n "$bin" ] || { echo "postgres: initdb not found" >&2; return 1; }
  if [ "$(id -u)" -eq 0 ]; then
    # PostgreSQL will not run as root: the package's own user owns the cluster.
    og_pg_user=postgres
    id "$og_pg_user" >/dev/null 2>&1 || useradd --system --no-create-home "$og_pg_user" || return 1
  else
    og_pg_user=$(id -un)
  fi
  og_pg_dir=$(mktemp -d "${TMPDIR:-/tmp}/objectgraph-postgres-XXXXXX") || return 1
  chmod 755 "$og_pg_dir"
  chown "$og_pg_user" "$og_pg_dir" 2>/dev/null || true
  password="og-test-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s\n' "$password" > "$og_pg_dir/pwfile"
  chown "$og_pg_user" "$og_pg_dir/pwfile" 2>/dev/null || true
  og_pg_as_owner "$bin/initdb" -D "$og_pg_dir/data" -U postgres --pwfile="$og_pg_dir/pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 --no-sync \
    > "$og_pg_dir/initdb.log" 2>&1 || { cat "$og_pg_dir/initdb.log" >&2; return 1; }
  rm -f "$og_pg_dir/pwfile"
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  # fsync off: a test cluster is thrown away, and the tests that kill writers check
  # PostgreSQL's transactions, not the disk.
  og_pg_as_owner "$bin/pg_ctl" -D "$og_pg_dir/data" -l "$og_pg_dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $og_pg_dir -c fsync=off -c max_connections=200" start \
    > /dev/null || { cat "$og_pg_dir/server.log" >&2; return 1; }
  export OBJECTGRAPH_TEST_POSTGRES_URL="postgresql://postgres:$password@127.0.0.1:$port/postgres"
  export OBJECTGRAPH_TEST_POSTGRES_BIN="$bin"
  echo "postgres: test server on 127.0.0.1:$port (cluster in $og_pg_dir)"
}

og_pg_stop() {
  [ -n "$og_pg_dir" ] || return 0
  og_pg_as_owner "$(og_pg_bindir)/pg_ctl" -D "$og_pg_dir/data" -m immediate stop > /dev/null 2>&1
  rm -rf "$og_pg_dir"
  og_pg_dir=""
  unset OBJECTGRAPH_TEST_POSTGRES_URL
}
