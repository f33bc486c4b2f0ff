#!/usr/bin/env bash
# Client CPU per completed transaction in no-wait mode: `tpcc run` and, when env GO_TPC points at
# a pingcap/go-tpc binary, `go-tpc tpcc run` on the same database, warehouses and terminal count,
# one after the other. Prints the median of RUNS runs of each.
#
#   TPCC_URL=postgres://postgres@127.0.0.1:58432/bench?sslmode=disable hack/bench-client.sh
#
# Env: TPCC_URL (required; a database loaded with `tpcc load --warehouses $WAREHOUSES`), TPCC_BIN
# (default: go build ./cmd/tpcc into a temp dir), WAREHOUSES (4), SECONDS_PER_RUN (60), RUNS (3),
# GO_TPC (optional go-tpc binary; this script never builds it), TPCC_BASELINE_BIN (optional: another
# tpcc binary, e.g. built from an earlier commit, run alternately with TPCC_BIN, run for run, so
# both medians come from the same conditions). go-tpc loads its own schema into
# the database named GO_TPC_DB (default tpcc_gotpc) with `go-tpc tpcc prepare` when it is empty.
# CPU is user + system time of the client process (bash `time`), divided by the transactions it
# completed (all five types): tpcc from its --summary-json, go-tpc from its "[Summary]" lines.
set -euo pipefail
: "${TPCC_URL:?set TPCC_URL to a loaded database}"
WAREHOUSES="${WAREHOUSES:-4}"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-60}"
RUNS="${RUNS:-3}"
TERMINALS=$((WAREHOUSES * 10))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ -z "${TPCC_BIN:-}" ]]; then
  TPCC_BIN="$work/tpcc"
  go build -o "$TPCC_BIN" ./cmd/tpcc
fi

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# cpu_seconds CMD...: runs CMD (output to $work/out, $work/err) and prints its user+system CPU seconds.
cpu_seconds() {
  local TIMEFORMAT='%U %S'
  { time "$@" >"$work/out" 2>"$work/err"; } 2>"$work/time"
  awk '{print $1 + $2}' "$work/time"
}

tpcc_run() {
  local cpu txns bin="${1:-$TPCC_BIN}"
  cpu=$(cpu_seconds "$bin" run --engine postgres --url "$TPCC_URL" --warehouses "$WAREHOUSES" --wait none \
    --ramp-up 0s --duration "${SECONDS_PER_RUN}s" --summary-json "$work/summary.json")
  txns=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["summary"]["totalCompleted"])' "$work/summary.json")
  awk -v c="$cpu" -v n="$txns" 'BEGIN {printf "%.4f %d %.2f\n", 1000*c/n, n, c}'
}

gotpc_run() {
  local cpu txns
  cpu=$(cpu_seconds "$GO_TPC" tpcc run -d postgres -H 127.0.0.1 -P "$GO_TPC_PORT" -U "$GO_TPC_USER" -D "$GO_TPC_DB" \
    --conn-params sslmode=disable --warehouses "$WAREHOUSES" --threads "$TERMINALS" --time "${SECONDS_PER_RUN}s")
  txns=$(grep '^\[Summary\]' "$work/out" | grep -v '_ERR' | sed -E 's/.*Count: ([0-9]+).*/\1/' | awk '{s+=$1} END {print s}')
  awk -v c="$cpu" -v n="$txns" 'BEGIN {printf "%.4f %d %.2f\n", 1000*c/n, n, c}'
}

echo "no-wait, $WAREHOUSES warehouses, $TERMINALS terminals/threads, ${SECONDS_PER_RUN}s x $RUNS runs"
if [[ -n "${TPCC_BASELINE_BIN:-}" ]]; then
  # Alternate which of the two goes first, so neither always meets the database the other left.
  for i in $(seq "$RUNS"); do
    if (( i % 2 )); then
      tpcc_run "$TPCC_BASELINE_BIN" >>"$work/baseline.txt"
      tpcc_run >>"$work/tpcc.txt"
    else
      tpcc_run >>"$work/tpcc.txt"
      tpcc_run "$TPCC_BASELINE_BIN" >>"$work/baseline.txt"
    fi
  done
  paste -d' ' "$work/baseline.txt" "$work/tpcc.txt" | awk '{print $4/$1}' >"$work/ratio.txt"
  echo "per-run ratio tpcc/baseline: median $(median <"$work/ratio.txt") ($(tr '\n' ' ' <"$work/ratio.txt"))"
  echo "baseline: median $(cut -d' ' -f1 "$work/baseline.txt" | median) ms CPU per transaction (runs: ms/txn txns cpu-s: $(tr '\n' ';' <"$work/baseline.txt"))"
else
  for i in $(seq "$RUNS"); do tpcc_run; done >"$work/tpcc.txt"
fi
echo "tpcc:   median $(cut -d' ' -f1 "$work/tpcc.txt" | median) ms CPU per transaction (runs: ms/txn txns cpu-s: $(tr '\n' ';' <"$work/tpcc.txt"))"

if [[ -n "${GO_TPC:-}" ]]; then
  GO_TPC_DB="${GO_TPC_DB:-tpcc_gotpc}"
  GO_TPC_PORT=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).port or 5432)' "$TPCC_URL")
  GO_TPC_USER=$(python3 -c 'import sys,urllib.parse as u; print(u.urlparse(sys.argv[1]).username or "postgres")' "$TPCC_URL")
  if ! psql "${TPCC_URL%/*}/$GO_TPC_DB?sslmode=disable" -Atc 'select 1 from warehouse limit 1' >/dev/null 2>&1; then
    psql "$TPCC_URL" -c "CREATE DATABASE $GO_TPC_DB" >/dev/null 2>&1 || true
    "$GO_TPC" tpcc prepare -d postgres -H 127.0.0.1 -P "$GO_TPC_PORT" -U "$GO_TPC_USER" -D "$GO_TPC_DB" \
      --conn-params sslmode=disable --warehouses "$WAREHOUSES" -T 2 >/dev/null
  fi
  for i in $(seq "$RUNS"); do gotpc_run; done >"$work/gotpc.txt"
  echo "go-tpc: median $(cut -d' ' -f1 "$work/gotpc.txt" | median) ms CPU per transaction (runs: $(tr '\n' ';' <"$work/gotpc.txt"))"
  awk -v t="$(cut -d' ' -f1 "$work/tpcc.txt" | median)" -v g="$(cut -d' ' -f1 "$work/gotpc.txt" | median)" \
    'BEGIN {printf "tpcc/go-tpc: %.3fx (ratio of the medians)\n", t/g}'
else
  echo "go-tpc: skipped (set GO_TPC to a go-tpc binary to compare)"
fi
