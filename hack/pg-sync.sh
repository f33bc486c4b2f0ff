#!/usr/bin/env bash
# A local PostgreSQL primary with two synchronous standbys on 127.0.0.1 — the single-node
# configuration of the study (synchronous_standby_names = 'ANY 2 (s1, s2)',
# synchronous_commit = remote_apply) — for real workload tests.
#
#   hack/pg-sync.sh up       create/start the cluster; returns once both standbys stream in quorum
#   hack/pg-sync.sh status   show the nodes and pg_stat_replication; exit 1 unless healthy
#   hack/pg-sync.sh url      print the postgres:// URL of the `tpcc` database
#   hack/pg-sync.sh url-multi  the same URL naming all three servers with
#                            target_session_attrs=read-write: pgx (and libpq) connect to whichever
#                            is the primary, before and after a failover
#   hack/pg-sync.sh failover stop the primary's postmaster hard (immediate: no shutdown
#                            checkpoint, clients see their connections drop), promote s1 and point
#                            s2 at it; the old primary stays down. s1 then commits locally
#                            (synchronous_standby_names is emptied: with one standby left, a
#                            quorum of 2 would block every commit). `up` refuses a failed-over
#                            cluster: `down` then `up` makes a fresh one.
#   hack/pg-sync.sh down     stop all three servers and remove PGSYNC_DIR
#
# Env: PGSYNC_DIR (default /tmp/pgsync-$PGSYNC_PORT), PGSYNC_PORT (primary, default 55432; the
# standbys use +1 and +2), PGSYNC_SHARED_BUFFERS (per server, default 1GB), PGSYNC_WAL_COMPRESSION
# (default off: PostgreSQL's and CloudNativePG's default, which the study keeps; on/pglz/lz4/zstd to
# measure its cost), PGSYNC_BIN (a PostgreSQL bin directory; default the newest major under
# /usr/lib/postgresql), PGSYNC_PROMOTE_DELAY (failover: seconds between the primary's stop and the
# promotion, default 0; failover prints both moments).
#
# Beyond the study's settings only sizes differ from PostgreSQL's defaults (connections, buffers,
# work memory, WAL size and checkpoint interval, so no checkpoint lands inside a short benchmark).
#
# Authentication is `trust` for 127.0.0.1 and the private socket directory only: this is a
# throwaway test cluster bound to loopback, never reachable from another host.
set -euo pipefail

PORT="${PGSYNC_PORT:-55432}"
DIR="${PGSYNC_DIR:-/tmp/pgsync-$PORT}"
SHARED_BUFFERS="${PGSYNC_SHARED_BUFFERS:-1GB}"
WAL_COMPRESSION="${PGSYNC_WAL_COMPRESSION:-off}"
NODES=(primary s1 s2)
DB=tpcc

die() { echo "pg-sync: $*" >&2; exit 1; }

[[ "$PORT" =~ ^[0-9]+$ ]] && (( PORT > 1023 && PORT < 65534 )) ||
  die "PGSYNC_PORT must be a port number in 1024..65533, got '$PORT'"

find_bin() {
  if [[ -n "${PGSYNC_BIN:-}" ]]; then
    [[ -x "$PGSYNC_BIN/postgres" ]] || die "PGSYNC_BIN=$PGSYNC_BIN has no postgres binary"
    echo "$PGSYNC_BIN"; return
  fi
  local newest
  newest=$(ls -1 /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+$' | sort -n | tail -1 || true)
  [[ -n "$newest" && -x "/usr/lib/postgresql/$newest/bin/postgres" ]] ||
    die "no PostgreSQL under /usr/lib/postgresql (apt-get install postgresql) and PGSYNC_BIN unset"
  echo "/usr/lib/postgresql/$newest/bin"
}
BIN=$(find_bin)

# PostgreSQL refuses to run as root: as root, run the servers as the `postgres` user.
if [[ $(id -u) == 0 ]]; then
  id postgres >/dev/null 2>&1 || die "running as root but there is no 'postgres' user"
  as_pg() { runuser -u postgres -- "$@"; }
  OWNER=postgres
else
  as_pg() { "$@"; }
  OWNER=$(id -un)
fi

node_port() { case "$1" in primary) echo "$PORT" ;; s1) echo $((PORT + 1)) ;; s2) echo $((PORT + 2)) ;; esac; }
node_dir() { echo "$DIR/$1"; }
psql_primary() { as_pg "$BIN/psql" -X -q -At -h 127.0.0.1 -p "$PORT" -U postgres "$@"; }
is_running() { [[ -f "$(node_dir "$1")/PG_VERSION" ]] && as_pg "$BIN/pg_ctl" -D "$(node_dir "$1")" status >/dev/null 2>&1; }

start_node() {
  local n=$1
  is_running "$n" && return 0
  as_pg "$BIN/pg_ctl" -D "$(node_dir "$n")" -l "$DIR/$n.log" -w -t 60 start >/dev/null ||
    { tail -20 "$DIR/$n.log" >&2; die "$n did not start (log: $DIR/$n.log)"; }
}

init_primary() {
  local d; d=$(node_dir primary)
  [[ -f "$d/PG_VERSION" ]] && return 0
  rm -rf "$d"
  as_pg "$BIN/initdb" -D "$d" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 ||
    { cat "$DIR/initdb.log" >&2; die "initdb failed"; }
  # Sized for a 2-core / 24 GiB machine shared with other work: three servers, 1 GiB of buffers
  # each by default; large WAL budget so a bulk load is not dominated by checkpoints.
  cat >>"$d/postgresql.conf" <<EOF

# --- hack/pg-sync.sh ---
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR/run'
cluster_name = 'primary'
max_connections = 300
shared_buffers = $SHARED_BUFFERS
effective_cache_size = 8GB
work_mem = 16MB
maintenance_work_mem = 512MB
max_wal_size = 8GB
min_wal_size = 1GB
checkpoint_timeout = 15min
checkpoint_completion_target = 0.9
wal_compression = $WAL_COMPRESSION
wal_level = replica
max_wal_senders = 10
max_replication_slots = 10
hot_standby = on
synchronous_standby_names = 'ANY 2 (s1, s2)'
synchronous_commit = remote_apply
max_parallel_maintenance_workers = 2
log_min_duration_statement = -1
log_checkpoints = on
EOF
  cat >"$d/pg_hba.conf" <<EOF
local all         all                trust
host  all         all  127.0.0.1/32  trust
local replication all                trust
host  replication all  127.0.0.1/32  trust
EOF
}

init_standby() {
  local n=$1 d; d=$(node_dir "$n")
  [[ -f "$d/PG_VERSION" && -f "$d/standby.signal" ]] && return 0
  rm -rf "$d"
  # A slot left over from an interrupted attempt would make -C fail.
  psql_primary -c "SELECT pg_drop_replication_slot('$n') FROM pg_replication_slots WHERE slot_name = '$n'" >/dev/null
  as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PORT" -U postgres -D "$d" -X stream -C -S "$n" -c fast \
    >"$DIR/basebackup-$n.log" 2>&1 || { cat "$DIR/basebackup-$n.log" >&2; die "pg_basebackup of $n failed"; }
  touch "$d/standby.signal"
  chown "$OWNER" "$d/standby.signal"
  cat >>"$d/postgresql.auto.conf" <<EOF
port = $(node_port "$n")
cluster_name = '$n'
primary_conninfo = 'host=127.0.0.1 port=$PORT user=postgres application_name=$n'
primary_slot_name = '$n'
EOF
}

wait_quorum() {
  local i rows
  for i in $(seq 1 120); do
    rows=$(psql_primary -c "SELECT count(*) FROM pg_stat_replication
      WHERE application_name IN ('s1','s2') AND state = 'streaming' AND sync_state = 'quorum'" 2>/dev/null || echo 0)
    [[ "$rows" == 2 ]] && return 0
    sleep 0.5
  done
  psql_primary -c "SELECT application_name, state, sync_state FROM pg_stat_replication" >&2 || true
  die "standbys s1, s2 not streaming in quorum after 60 s (logs: $DIR/*.log)"
}

cmd_up() {
  [[ ! -f "$DIR/failed-over" ]] ||
    die "$DIR failed over (s1 is the primary now): run down, then up for a fresh cluster"
  mkdir -p "$DIR/run"
  chown "$OWNER" "$DIR" "$DIR/run"
  chmod 700 "$DIR"
  init_primary
  start_node primary
  init_standby s1
  init_standby s2
  start_node s1
  start_node s2
  wait_quorum
  # After the quorum: CREATE DATABASE commits and must be acknowledged by both standbys.
  if [[ $(psql_primary -c "SELECT count(*) FROM pg_database WHERE datname = '$DB'") == 0 ]]; then
    psql_primary -c "CREATE DATABASE $DB" >/dev/null
  fi
  echo "pg-sync: up ($BIN), primary 127.0.0.1:$PORT, standbys :$((PORT + 1)) :$((PORT + 2)), dir $DIR"
  cmd_url
}

cmd_status() {
  local ok=0 n
  if [[ -f "$DIR/failed-over" ]]; then
    echo "failed over: the primary :$PORT was stopped, s1 :$((PORT + 1)) is the primary (down, then up for a fresh cluster)"
    ok=1
  fi
  for n in "${NODES[@]}"; do
    if is_running "$n"; then echo "$n: running on 127.0.0.1:$(node_port "$n")"
    else echo "$n: stopped"; ok=1; fi
  done
  if is_running primary; then
    psql_primary -c "SELECT application_name || ': ' || state || ', sync_state=' || sync_state ||
      ', replay_lag=' || coalesce(replay_lag::text, '0') FROM pg_stat_replication ORDER BY 1"
    [[ $(psql_primary -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND sync_state = 'quorum'") == 2 ]] || ok=1
  fi
  return $ok
}

cmd_url() { echo "postgres://postgres@127.0.0.1:$PORT/$DB?sslmode=disable"; }

cmd_url_multi() {
  echo "postgres://postgres@127.0.0.1:$PORT,127.0.0.1:$((PORT + 1)),127.0.0.1:$((PORT + 2))/$DB?sslmode=disable&target_session_attrs=read-write"
}

psql_port() { local p=$1; shift; as_pg "$BIN/psql" -X -q -At -h 127.0.0.1 -p "$p" -U postgres "$@"; }

cmd_failover() {
  [[ ! -f "$DIR/failed-over" ]] || die "$DIR already failed over: run down, then up"
  is_running primary || die "the primary is not running (run up first)"
  is_running s1 || die "standby s1 is not running: nothing to promote"
  local s1 s2 p1=$((PORT + 1)) i
  s1=$(node_dir s1)
  s2=$(node_dir s2)
  # Immediate: the postmaster sends SIGQUIT to every backend and exits without a checkpoint,
  # as close to a lost machine as one host allows.
  as_pg "$BIN/pg_ctl" -D "$(node_dir primary)" -m immediate -w -t 60 stop >/dev/null
  # When the primary was gone and when s1 was asked to promote (seconds since the epoch, this
  # host's clock): no commit can be acknowledged between the two, whatever the promotion takes.
  echo "pg-sync: primary stopped at $(date +%s.%N)"
  touch "$DIR/failed-over"
  # Alone with s2, s1 must not wait for a quorum of two standbys.
  echo "synchronous_standby_names = ''" >>"$s1/postgresql.auto.conf"
  as_pg "$BIN/pg_ctl" -D "$s1" reload >/dev/null
  # PGSYNC_PROMOTE_DELAY (seconds) delays the promotion, as a failover manager that waits
  # before it promotes (CloudNativePG took 12-14 s here): tests measure slow failovers with it.
  [[ "${PGSYNC_PROMOTE_DELAY:-0}" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "PGSYNC_PROMOTE_DELAY must be a number of seconds, got '${PGSYNC_PROMOTE_DELAY}'"
  sleep "${PGSYNC_PROMOTE_DELAY:-0}"
  echo "pg-sync: promoting s1 at $(date +%s.%N)"
  as_pg "$BIN/pg_ctl" -D "$s1" -w -t 60 promote >/dev/null || die "promoting s1 failed (log: $DIR/s1.log)"
  for i in $(seq 1 120); do
    [[ $(psql_port "$p1" -c "SELECT pg_is_in_recovery()" 2>/dev/null || true) == f ]] && break
    sleep 0.5
  done
  [[ $(psql_port "$p1" -c "SELECT pg_is_in_recovery()") == f ]] || die "s1 did not leave recovery"
  echo "pg-sync: s1 out of recovery at $(date +%s.%N)"
  # s2 follows s1 on the new timeline (best effort: a standby that had received WAL s1 had not
  # would need pg_rewind; the promoted primary does not wait for it either way).
  if is_running s2; then
    psql_port "$p1" -c "SELECT pg_create_physical_replication_slot('s2') WHERE NOT EXISTS
      (SELECT 1 FROM pg_replication_slots WHERE slot_name = 's2')" >/dev/null || true
    echo "primary_conninfo = 'host=127.0.0.1 port=$p1 user=postgres application_name=s2'" >>"$s2/postgresql.auto.conf"
    as_pg "$BIN/pg_ctl" -D "$s2" reload >/dev/null || true
  fi
  echo "pg-sync: failed over: primary :$PORT stopped (immediate), s1 :$p1 promoted, s2 :$((PORT + 2)) follows s1"
}

cmd_down() {
  local n
  for n in s2 s1 primary; do
    if is_running "$n"; then as_pg "$BIN/pg_ctl" -D "$(node_dir "$n")" -m fast -w -t 60 stop >/dev/null; fi
  done
  case "$DIR" in /|/tmp|/tmp/|"") die "refusing to remove PGSYNC_DIR=$DIR" ;; esac
  rm -rf "$DIR"
  echo "pg-sync: down, removed $DIR"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  url) cmd_url ;;
  url-multi) cmd_url_multi ;;
  failover) cmd_failover ;;
  *) die "usage: $0 up|down|status|url|url-multi|failover" ;;
esac
