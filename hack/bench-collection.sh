#!/usr/bin/env bash
# What the per-interval collection costs the client: `tpcc run` at 40 terminals without waits with
# the collection at its finest (--interval 1s, the operator's smallest workload.interval, and
# --telemetry sampling the database every interval) against the same run keeping only its totals
# (--no-time-series), side by side, rotating which goes first, RUNS times each; SPLIT=1 adds the
# series without the database sampling, to tell the client's part from the sampler's. Prints each
# run's transactions per second, the medians and their ratio (target: collection costs at most 5 %
# of the throughput). The machine is shared: the ratio of medians of alternating runs is the
# figure, not any single run.
#
#   TPCC_URL=postgres://postgres@127.0.0.1:63432/bench?sslmode=disable hack/bench-collection.sh
#
# Env: TPCC_URL (required; a database loaded with `tpcc load --warehouses 4`), TPCC_BIN (default:
# go build ./cmd/tpcc), SECONDS_PER_RUN (30), RUNS (5), INTERVAL (1s; the operator's default is 10s).
set -euo pipefail
: "${TPCC_URL:?set TPCC_URL to a database loaded with 4 warehouses}"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-30}"
INTERVAL="${INTERVAL:-1s}"
RUNS="${RUNS:-5}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [[ -z "${TPCC_BIN:-}" ]]; then
  TPCC_BIN="$work/tpcc"
  go build -o "$TPCC_BIN" ./cmd/tpcc
fi
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# run MODE: prints completed transactions per second of one run. on: the series at 1 s and the
# database sampled every second; series: the series only (the client's own part); off: totals only.
run() {
  local flags=(--interval "$INTERVAL" --telemetry)
  [[ $1 == series ]] && flags=(--interval "$INTERVAL")
  [[ $1 == off ]] && flags=(--no-time-series)
  "$TPCC_BIN" run --engine postgres --url "$TPCC_URL" --warehouses 4 --wait none --ramp-up 0s \
    --duration "${SECONDS_PER_RUN}s" --summary-json "$work/summary.json" "${flags[@]}" >"$work/out" 2>"$work/err" || true
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; print("%.2f" % (d["totalCompleted"] / d["measuredSeconds"]))' "$work/summary.json"
}

echo "no waits, 4 warehouses, 40 terminals, interval $INTERVAL, ${SECONDS_PER_RUN}s x $RUNS runs each, rotating"
modes=(on off)
[[ -n "${SPLIT:-}" ]] && modes=(on series off)
for i in $(seq "$RUNS"); do
  order=("${modes[@]:$(( (i - 1) % ${#modes[@]} ))}" "${modes[@]:0:$(( (i - 1) % ${#modes[@]} ))}")
  for mode in "${order[@]}"; do
    tps=$(run "$mode")
    echo "$tps" >>"$work/$mode.txt"
    echo "run $i collection $mode: $tps transactions/s"
  done
done
on=$(median <"$work/on.txt")
off=$(median <"$work/off.txt")
awk -v on="$on" -v off="$off" 'BEGIN {printf "median: collection on %.2f/s, off %.2f/s: on/off = %.4f, cost %.2f %%\n", on, off, on/off, 100*(1-on/off)}'
if [[ -f "$work/series.txt" ]]; then
  series=$(median <"$work/series.txt")
  awk -v s="$series" -v off="$off" 'BEGIN {printf "median: series only %.2f/s: series/off = %.4f, cost %.2f %%\n", s, s/off, 100*(1-s/off)}'
fi
