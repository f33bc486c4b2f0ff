#!/usr/bin/env bash
# Load throughput into the local sync cluster (hack/pg-sync.sh), three ways, side by side, on the
# same server and the same rows:
#   tpcc    `tpcc load`: generation streamed into binary COPY FROM STDIN, then keys + indexes + ANALYZE, then VACUUM
#   files   the ceiling of that path: the same rows pre-generated into binary COPY files (tpcc load
#           --copy-files), loaded with server-side COPY … FROM '<file>' (same parallelism: one
#           transaction per warehouse, BENCH_THREADS at a time), then the same keys + indexes +
#           VACUUM (ANALYZE) (in one session)
#   go-tpc  `go-tpc tpcc prepare --no-check`, only if GO_TPC names a binary (not built here)
# Prints each run and the medians: total seconds, data seconds (without keys/indexes), warehouses/min,
# and go-tpc's time over tpcc's per run (the ways of a run are side by side; the order rotates).
#
# Env: BENCH_WAREHOUSES (4), BENCH_RUNS (3), BENCH_THREADS (2), TPCC_PG_URL (default: pg-sync.sh url),
#      GO_TPC (path to a go-tpc binary, optional).
set -euo pipefail

W="${BENCH_WAREHOUSES:-4}"
RUNS="${BENCH_RUNS:-3}"
THREADS="${BENCH_THREADS:-2}"
SEED=7
export PGOPTIONS="-c client_min_messages=warning"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
URL="${TPCC_PG_URL:-$("$ROOT/hack/pg-sync.sh" url)}"

[[ "$URL" =~ ^postgres(ql)?://([^@/]*@)?([^:/]+):([0-9]+)/ ]] ||
  { echo "bench-load: cannot parse host:port from TPCC_PG_URL" >&2; exit 1; }
HOST="${BASH_REMATCH[3]}"
PORT="${BASH_REMATCH[4]}"
server_url() { echo "postgres://postgres@$HOST:$PORT/$1?sslmode=disable"; }
admin() { psql -X -q -At "$(server_url postgres)" -c "$1"; }
# Every run starts from the same state: only its own, new database (autovacuum would otherwise
# still be vacuuming and analyzing the previous run's freshly loaded tables), the standbys caught
# up, a checkpoint, and no dirty pages left in the page cache from the run before (their writeback
# would compete for the same two cores).
fresh_db() {
  local db
  for db in bench_tpcc bench_files bench_gotpc; do admin "DROP DATABASE IF EXISTS $db WITH (FORCE)"; done
  admin "CREATE DATABASE $1"
  admin "CHECKPOINT"
  local i
  for i in $(seq 1 600); do
    [[ "$(admin "SELECT count(*) FROM pg_stat_replication WHERE replay_lsn IS NULL OR replay_lsn < pg_current_wal_lsn()")" == 0 ]] && break
    sleep 0.1
  done
  sync
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

WORK="$(mktemp -d /tmp/bench-load.XXXXXX)"
cleanup() {
  for db in bench_tpcc bench_files bench_gotpc; do admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
chmod 755 "$WORK" # the server reads the COPY files as its own user

echo "bench-load: $W warehouses, $RUNS runs, $THREADS threads, server $HOST:$PORT ($(admin 'SHOW server_version'), $(admin 'SHOW synchronous_standby_names'), synchronous_commit=$(admin 'SHOW synchronous_commit'), wal_compression=$(admin 'SHOW wal_compression'))"
(cd "$ROOT" && go build -o "$WORK/tpcc" ./cmd/tpcc)
"$WORK/tpcc" load --engine postgres --url "$URL" --warehouses "$W" --seed "$SEED" --threads "$THREADS" --copy-files "$WORK/files"
chmod -R a+rX "$WORK/files"

run_tpcc() {
  fresh_db bench_tpcc
  local t0 t1 out
  t0=$(now)
  out=$("$WORK/tpcc" load --engine postgres --url "$(server_url bench_tpcc)" --warehouses "$W" --threads "$THREADS" \
    --seed "$SEED" --progress-interval 1h 2>/dev/null)
  t1=$(now)
  # "phases: schema 0.05s items 0.61s warehouses 8.10s finish 5.90s"
  local data
  data=$(sed -n 's/.*phases: //p' <<<"$out" | awk '{ for (i = 1; i < NF; i += 2) if ($i == "items" || $i == "warehouses") s += $(i + 1) } END { printf "%.2f", s }')
  echo "$(secs "$t0" "$t1") $data"
}

run_files() {
  fresh_db bench_files
  local u t0 t1 t2
  u=$(server_url bench_files)
  psql -X -q "$u" -f "$WORK/files/schema.sql" >/dev/null
  t0=$(now)
  psql -X -q "$u" -v ON_ERROR_STOP=1 -f "$WORK/files/item.sql" >/dev/null
  ls "$WORK"/files/w*.sql | xargs -P "$THREADS" -n 1 psql -X -q "$u" -v ON_ERROR_STOP=1 -f >/dev/null
  t1=$(now)
  psql -X -q "$u" -v ON_ERROR_STOP=1 -f "$WORK/files/finish.sql" >/dev/null
  t2=$(now)
  echo "$(secs "$t0" "$t2") $(secs "$t0" "$t1")"
}

run_gotpc() {
  fresh_db bench_gotpc
  local t0 t1
  t0=$(now)
  "$GO_TPC" tpcc prepare -d postgres -H "$HOST" -P "$PORT" -U postgres -D bench_gotpc --conn-params sslmode=disable \
    --warehouses "$W" -T "$THREADS" --no-check >"$WORK/gotpc.log" 2>&1 || { tail -20 "$WORK/gotpc.log" >&2; return 1; }
  t1=$(now)
  echo "$(secs "$t0" "$t1") -"
}

declare -A TOTAL DATA RUN
ways=(tpcc files)
[[ -n "${GO_TPC:-}" ]] && ways+=(gotpc)
RATIOS=""
for run in $(seq 1 "$RUNS"); do
  # Each run starts with the next way: the first run after a server start pays for faulting in
  # the servers' shared memory, and no way should always be the one that pays.
  n=${#ways[@]}
  for ((k = 0; k < n; k++)); do
    way=${ways[$(((run - 1 + k) % n))]}
    read -r total data < <("run_$way")
    TOTAL[$way]+="$total "
    DATA[$way]+="$data "
    RUN[$way]=$total
    echo "run $run  $way  total ${total}s  data ${data}s"
  done
  if [[ -n "${GO_TPC:-}" ]]; then
    r=$(awk -v a="${RUN[gotpc]}" -v b="${RUN[tpcc]}" 'BEGIN { printf "%.2f", a / b }')
    RATIOS+="$r "
    echo "run $run  go-tpc / tpcc ${r}x"
  fi
done

median() { tr ' ' '\n' | { grep -v '^-\?$' || true; } | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
printf "%-7s %12s %11s %17s\n" way "total (s)" "data (s)" "warehouses/min"
for way in "${ways[@]}"; do
  t=$(median <<<"${TOTAL[$way]}")
  d=$(median <<<"${DATA[$way]}")
  printf "%-7s %12s %11s %17s\n" "$way" "$t" "$d" "$(awk -v w="$W" -v t="$t" 'BEGIN { printf "%.1f", w * 60 / t }')"
  declare "MED_$way=$t"
  declare "MEDD_$way=$d"
done
echo
echo "tpcc / files (total): $(awk -v a="$MED_tpcc" -v b="$MED_files" 'BEGIN { printf "%.2f", a / b }')x" \
  " (data only: $(awk -v a="$MEDD_tpcc" -v b="$MEDD_files" 'BEGIN { printf "%.2f", a / b }')x)"
if [[ -n "${GO_TPC:-}" ]]; then
  echo "go-tpc / tpcc (total): $(awk -v a="$MED_gotpc" -v b="$MED_tpcc" 'BEGIN { printf "%.1f", a / b }')x of the medians;" \
    "per run: median $(median <<<"$RATIOS")x, range $(tr ' ' '\n' <<<"$RATIOS" | grep . | sort -n | sed -n '1p;$p' | paste -sd- )x"
fi
exit 0
