#!/usr/bin/env bash
# Records a capacity sweep of the local PostgreSQL sync cluster (hack/pg-sync.sh: a primary and two
# synchronous standbys, remote_apply) for the replay of the capacity search (internal/search,
# docs/search.md "Replay on a real sweep"): every active warehouse count in SWEEP_FROM..SWEEP_TO,
# SWEEP_REPEATS times, each a full-length `tpcc run` step with TPC-C keying and think times, in a
# shuffled order per pass so drift (the database growing, the machine's other load) spreads over the
# counts instead of following them. Each step's summary JSON (final snapshot and 5 s time series)
# is kept in SWEEP_RAW; hack/searchsweep condenses them into SWEEP_OUT: per step the figures the
# operator would record for a full step and for a probe (the first SWEEP_DURATION/5 of the measured
# interval, which is what a probe measures: the same ramp-up, then a shorter measured interval).
#
#   sudo PGSYNC_PORT=61432 hack/search-sweep.sh
#
# The constraint. With spec waits each warehouse offers at most 12.86 tpmC, so an unconstrained
# server on this machine would need hundreds of warehouses to saturate. Each of the three servers
# runs in its own CPU cgroup with a CFS quota of SWEEP_CPU CPUs per 100 ms period — what a
# Kubernetes `resources.limits.cpu` does to a CloudNativePG instance pod — and a high CPU weight so
# it gets that quota even when the machine is busy. The client runs in a cgroup of its own with a
# high weight and no quota. The load runs before the quota is applied.
#
# Resumable: a step whose summary is already in SWEEP_RAW is not run again (the database is kept
# between invocations unless SWEEP_DOWN=1). Needs root (cgroups; pg-sync runs the servers as the
# postgres user).
#
# Env: PGSYNC_PORT (required), SWEEP_FROM (14), SWEEP_TO (34), SWEEP_REPEATS (3), SWEEP_LOADED
# (SWEEP_TO), SWEEP_CPU (0.25), SWEEP_RAMP (1m), SWEEP_DURATION (5m), SWEEP_SETTLE (10 s between
# steps), SWEEP_SEED (1: the order of each pass), SWEEP_RAW (/tmp/search-sweep-$PGSYNC_PORT),
# SWEEP_OUT (internal/search/testdata/sweep-pgsync.json), SWEEP_DOWN (0: keep the cluster up),
# SWEEP_PROBE (a probe's measured interval: default SWEEP_DURATION/5, a whole number of 5 s intervals).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
: "${PGSYNC_PORT:?set PGSYNC_PORT: the port of the primary, the standbys use +1 and +2}"
FROM=${SWEEP_FROM:-14}
TO=${SWEEP_TO:-34}
REPEATS=${SWEEP_REPEATS:-3}
LOADED=${SWEEP_LOADED:-$TO}
CPU=${SWEEP_CPU:-0.25}
RAMP=${SWEEP_RAMP:-1m}
DURATION=${SWEEP_DURATION:-5m}
SETTLE=${SWEEP_SETTLE:-10}
PROBE=${SWEEP_PROBE:-}   # a probe's measured interval (default duration/5); a whole number of 5 s intervals
SEED=${SWEEP_SEED:-1}
RAW=${SWEEP_RAW:-/tmp/search-sweep-$PGSYNC_PORT}
OUT=${SWEEP_OUT:-$ROOT/internal/search/testdata/sweep-pgsync.json}
export PGSYNC_DIR=${PGSYNC_DIR:-$RAW/pg}
NAME=tpcc-sweep-$PGSYNC_PORT
PERIOD_US=100000

die() { echo "search-sweep: $*" >&2; exit 1; }
log() { echo "search-sweep: $(date -u +%H:%M:%S) $*" >&2; }
[[ $(id -u) == 0 ]] || die "needs root: the servers and the client run in CPU cgroups"
(( FROM >= 1 && TO >= FROM && LOADED >= TO )) || die "want 1 <= SWEEP_FROM <= SWEEP_TO <= SWEEP_LOADED"
QUOTA_US=$(awk -v c="$CPU" -v p=$PERIOD_US 'BEGIN { q = int(c * p + 0.5); if (q < 1000) exit 1; print q }') ||
  die "SWEEP_CPU=$CPU: want at least 0.01 CPU"

# CPU cgroups: v1 (a cpu hierarchy) or v2 (the unified hierarchy with the cpu controller).
if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
  CG=v2
  CGROOT=/sys/fs/cgroup
  grep -qw cpu "$CGROOT/cgroup.controllers" || die "cgroup v2 without the cpu controller"
  grep -qw cpu "$CGROOT/cgroup.subtree_control" || echo +cpu >"$CGROOT/cgroup.subtree_control"
elif [[ -d /sys/fs/cgroup/cpu ]]; then
  CG=v1
  CGROOT=/sys/fs/cgroup/cpu
else
  die "no CPU cgroup hierarchy under /sys/fs/cgroup"
fi
cg_dir() { echo "$CGROOT/$NAME-$1"; }
cg_make() { # name quota_us|max
  local d; d=$(cg_dir "$1")
  mkdir -p "$d"
  if [[ $CG == v2 ]]; then
    echo "$2 $PERIOD_US" >"$d/cpu.max"
    echo 10000 >"$d/cpu.weight"
  else
    echo $PERIOD_US >"$d/cpu.cfs_period_us"
    if [[ $2 == max ]]; then echo -1 >"$d/cpu.cfs_quota_us"; else echo "$2" >"$d/cpu.cfs_quota_us"; fi
    echo 262144 >"$d/cpu.shares"
  fi
}
cg_enter() { echo "$2" >"$(cg_dir "$1")/cgroup.procs"; } # name pid
throttled() { # name: "periods throttled" so far
  local d; d=$(cg_dir "$1")
  if [[ $CG == v2 ]]; then awk '$1 == "nr_periods" { p = $2 } $1 == "nr_throttled" { t = $2 } END { print p + 0, t + 0 }' "$d/cpu.stat"
  else awk '$1 == "nr_periods" { p = $2 } $1 == "nr_throttled" { t = $2 } END { print p + 0, t + 0 }' "$d/cpu.stat"; fi
}

mkdir -p "$RAW"
BIN="$RAW/tpcc"
log "building the client"
(cd "$ROOT" && go build -o "$BIN" ./cmd/tpcc)
"$ROOT/hack/pg-sync.sh" up >&2
URL=$("$ROOT/hack/pg-sync.sh" url)
PSQL=(psql -X -q -At "$URL")
log "loading $LOADED warehouses (resumes a partial load; no CPU quota yet)"
"$BIN" load --engine postgres --url "$URL" --warehouses "$LOADED" --threads 2 --progress-interval 1h >&2

# Each server (postmaster and every process it has forked) into its own cgroup; backends forked
# later inherit it.
for node in primary s1 s2; do
  cg_make "$node" "$QUOTA_US"
  pm=$(head -1 "$PGSYNC_DIR/$node/postmaster.pid")
  for pid in $pm $(pgrep -P "$pm"); do cg_enter "$node" "$pid" 2>/dev/null || true; done
done
cg_make client max
PGVERSION=$("${PSQL[@]}" -c 'SHOW server_version')

counts=$(seq "$FROM" "$TO")
META="$RAW/steps.jsonl"
if [[ ! -s "$META" ]]; then
  # Warm-up, not recorded: caches filled and autovacuum done with the fresh tables under the quota.
  log "warm-up: $(((FROM + TO) / 2)) active warehouses for 4 minutes (not recorded)"
  sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$(cg_dir client)" \
    "$BIN" run --engine postgres --url "$URL" --warehouses "$LOADED" --active-warehouses $(((FROM + TO) / 2)) \
    --ramp-up 1m --duration 3m >"$RAW/warmup.out" 2>&1 || true
fi
touch "$META"
for pass in $(seq 1 "$REPEATS"); do
  # The order of a pass: a seeded shuffle, the same on every re-run (resume).
  order=$(python3 -c 'import random, sys; c = sys.argv[2:]; random.Random(sys.argv[1]).shuffle(c); print(*c)' "$SEED-$pass" $counts)
  for w in $order; do
    file="w$w-r$pass.json"
    [[ -s "$RAW/$file" ]] && continue
    log "pass $pass/$REPEATS: $w active warehouses ($file)"
    read -r load1 _ </proc/loadavg
    read -r p0 t0 < <(throttled primary)
    start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    rc=0
    sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$(cg_dir client)" \
      "$BIN" run --engine postgres --url "$URL" --warehouses "$LOADED" --active-warehouses "$w" \
      --ramp-up "$RAMP" --duration "$DURATION" --interval 5s --summary-json "$RAW/$file.tmp" \
      >"$RAW/w$w-r$pass.out" 2>&1 || rc=$?
    end=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    read -r load1after _ </proc/loadavg
    read -r p1 t1 < <(throttled primary)
    # Exit 0 compliant, 3 non-compliant: both are measurements. Anything else failed to measure.
    if [[ $rc != 0 && $rc != 3 ]]; then
      tail -5 "$RAW/w$w-r$pass.out" >&2
      die "step $file exited $rc (see $RAW/w$w-r$pass.out)"
    fi
    mv "$RAW/$file.tmp" "$RAW/$file"
    printf '{"file":"%s","active":%d,"repeat":%d,"start":"%s","end":"%s","load1Before":%s,"load1After":%s,"primaryPeriods":%d,"primaryThrottled":%d}\n' \
      "$file" "$w" "$pass" "$start" "$end" "$load1" "$load1after" $((p1 - p0)) $((t1 - t0)) >>"$META"
    sleep "$SETTLE"
  done
done

cat >"$RAW/meta.json" <<EOF
{
  "date": "$(date -u +%Y-%m-%d)",
  "command": "PGSYNC_PORT=$PGSYNC_PORT SWEEP_FROM=$FROM SWEEP_TO=$TO SWEEP_REPEATS=$REPEATS SWEEP_LOADED=$LOADED SWEEP_CPU=$CPU SWEEP_RAMP=$RAMP SWEEP_DURATION=$DURATION SWEEP_SEED=$SEED hack/search-sweep.sh",
  "commit": "$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)",
  "machine": "$(nproc) CPUs ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)",
  "database": "PostgreSQL $PGVERSION: hack/pg-sync.sh (primary + 2 synchronous standbys, ANY 2, remote_apply, shared_buffers ${PGSYNC_SHARED_BUFFERS:-1GB}) on loopback",
  "constraint": "each server in its own CPU cgroup ($CG): CFS quota $CPU CPU per ${PERIOD_US}us period (as resources.limits.cpu: $(awk -v c="$CPU" 'BEGIN { printf "%dm", c * 1000 }')), high weight; client in a cgroup with high weight, no quota; load before the quota",
  "workload": "spec keying and think times, 10 terminals per active warehouse, $LOADED warehouses loaded, ramp-up $RAMP, measured $DURATION, 5 s intervals; passes in seeded shuffled order (seed $SEED)"
}
EOF
log "condensing into $OUT"
(cd "$ROOT" && go run ./hack/searchsweep -raw "$RAW" -ramp-up "$RAMP" -duration "$DURATION" ${PROBE:+-probe "$PROBE"} -out "$OUT")
if [[ ${SWEEP_DOWN:-0} == 1 ]]; then
  "$ROOT/hack/pg-sync.sh" down >&2
  for node in primary s1 s2 client; do rmdir "$(cg_dir "$node")" 2>/dev/null || true; done
fi
log "done: $OUT"
