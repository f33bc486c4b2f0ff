#!/usr/bin/env bash
# What loading once saves a suite's repeats (issue "the study's time scale", docs/reuse.md): runs
# config/samples/suite-reuse.yaml (one database, 3 repeats, dataReuse: Repeats) and then the same
# suite with dataReuse: None, one after the other on the same cluster (hack/demo-suite.sh: the
# cluster of KUBECONFIG, else the local one), and prints each suite's wall time from apply to its
# end, the time its runs spent deploying and loading, and the ratio. BENCH_VARIANTS="Snapshot None"
# measures config/samples/suite-snapshot.yaml (dataReuse: Snapshot: every repeat restored from the
# first's snapshot) instead of Repeats; on the local cluster hack/cluster/snapshots.sh first adds
# the snapshots it needs.
#
#   hack/bench-reuse.sh            # then hack/cluster/down.sh if it brought the local cluster up
#
# env: BENCH_VARIANTS (Repeats None; any of Repeats, Snapshot, None, None last), and as
#      hack/demo-suite.sh (DEMO_CLUSTER, DEMO_NAMESPACE, TPCC_ALLOW_CLUSTER_INSTALL, ...)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ns=${DEMO_NAMESPACE:-default}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed 's/^  name: suite-reuse$/  name: suite-reuse-none/; s/^  dataReuse: Repeats$/  dataReuse: None/' \
  "$ROOT/config/samples/suite-reuse.yaml" > "$work/none.yaml"
grep -q '^  dataReuse: None$' "$work/none.yaml" || { echo "bench-reuse: could not derive the None suite" >&2; exit 1; }

source "$ROOT/hack/cluster/common.sh"
KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}
declare -A wall
variants=${BENCH_VARIANTS:-Repeats None}
for variant in $variants; do
  case $variant in
    Repeats) file="$ROOT/config/samples/suite-reuse.yaml"; name=suite-reuse ;;
    None) file="$work/none.yaml"; name=suite-reuse-none ;;
    Snapshot)
      file="$ROOT/config/samples/suite-snapshot.yaml"; name=suite-snapshot
      # The local cluster's VolumeSnapshots (StorageClass and VolumeSnapshotClass local-snap, which
      # the sample names); another cluster must offer its own under those names.
      if [ -f "$STATE/nodes.count" ]; then
        "$ROOT/hack/cluster/snapshots.sh" >/dev/null
      else
        echo "bench-reuse: no local cluster up (hack/cluster/up.sh): the cluster of KUBECONFIG must offer StorageClass and VolumeSnapshotClass local-snap" >&2
      fi
      ;;
    *) echo "bench-reuse: BENCH_VARIANTS: unknown variant $variant (Repeats, Snapshot, None)" >&2; exit 2 ;;
  esac
  start=$(date +%s)
  DEMO_SUITE="$file" "$ROOT/hack/demo-suite.sh" | tee "$work/$variant.log"
  # The suite's own clock: from its first run's start to its last run's end (status.runs).
  KUBECONFIG=${KUBECONFIG:-$("$ROOT/hack/cluster/status.sh" kubeconfig)} \
    "$KUBECTL" -n "$ns" get benchmarksuite "$name" -o json > "$work/$variant.json"
  KUBECONFIG=${KUBECONFIG:-$("$ROOT/hack/cluster/status.sh" kubeconfig)} \
    "$KUBECTL" -n "$ns" get benchmarkrun -l bench.oltp.io/suite="$name" -o json > "$work/$variant-runs.json" || true
  wall[$variant]=$(python3 - "$work/$variant.json" "$work/$variant-runs.json" <<'PY'
import json, sys, datetime
def t(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))
st = json.load(open(sys.argv[1])).get("status", {})
recs = st.get("runs", [])
starts = [t(r["startTime"]) for r in recs if r.get("startTime")]
ends = [t(r["completionTime"]) for r in recs if r.get("completionTime")]
wall = int((max(ends) - min(starts)).total_seconds()) if starts and len(ends) == len(recs) else -1
try:
    runs = json.load(open(sys.argv[2]))["items"]
except Exception:
    runs = []
prep = 0.0
for r in runs:
    load = r.get("status", {}).get("load") or {}
    if load.get("completionTime"):
        prep += (t(load["completionTime"]) - t(r["metadata"]["creationTimestamp"])).total_seconds()
print(wall, int(prep), st.get("phase", "?"), len(recs))
PY
)
  echo "bench-reuse: dataReuse $variant: ${wall[$variant]} (suite seconds, seconds to data ready summed over runs, phase, runs)"
  KUBECONFIG=${KUBECONFIG:-$("$ROOT/hack/cluster/status.sh" kubeconfig)} \
    "$KUBECTL" -n "$ns" delete benchmarksuite "$name" --cascade=foreground --wait=true --timeout=10m >/dev/null
done
[ -n "${wall[None]:-}" ] || exit 0
read -r ns_ np nphase _ <<<"${wall[None]}"
for variant in Repeats Snapshot; do
  [ -n "${wall[$variant]:-}" ] || continue
  read -r rs rp rphase _ <<<"${wall[$variant]}"
  echo "bench-reuse: 1 database x 3 repeats: dataReuse $variant ${rs}s ($rphase; ${rp}s to data ready), None ${ns_}s ($nphase; ${np}s to data ready)"
  awk -v v="$variant" -v r="$rs" -v n="$ns_" 'BEGIN { if (r > 0 && n > 0) printf "bench-reuse: %s takes %.2f of the time of None (saves %.0f s, %.0f %%)\n", v, r/n, n-r, 100*(1-r/n) }'
done
