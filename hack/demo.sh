#!/usr/bin/env bash
# `make demo`: one BenchmarkRun end to end on a real cluster.
#   1. the cluster of KUBECONFIG (or ~/.kube/config) when it answers, else the local one
#      (hack/cluster/up.sh); DEMO_CLUSTER=local always takes the local one
#   2. CloudNativePG and the operator (hack/cluster/install.sh): on the local cluster it builds and
#      installs them; on a cluster this project did not create it installs nothing — it uses them
#      when they are installed already, and otherwise refuses (exit 3) unless
#      TPCC_ALLOW_CLUSTER_INSTALL=1 (with IMG_PREFIX and TAG of images you pushed)
#   3. config/samples/demo.yaml (or DEMO_RUN=file), followed until it ends with `kubectl tpcc status
#      -w` (exit 0: Succeeded, 7: Failed, 6: not ended within DEMO_TIMEOUT; docs/kubectl-tpcc.md),
#      then its report (Markdown here, HTML in bin/NAME.html)
#
# env: DEMO_RUN (config/samples/demo.yaml), DEMO_NAMESPACE (default), DEMO_TIMEOUT (45m), DEMO_CLUSTER,
#      TPCC_ALLOW_CLUSTER_INSTALL, IMG_PREFIX, TAG
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/demo-lib.sh"
RUN_FILE=${DEMO_RUN:-$ROOT/config/samples/demo.yaml}
RUN_NS=${DEMO_NAMESPACE:-default}
TIMEOUT=${DEMO_TIMEOUT:-45m}

INSTALL_CALLER="make demo" demo_cluster
name=$(sed -n 's/^  name: *//p' "$RUN_FILE" | head -1)
[ -n "$name" ] || die "$RUN_FILE: no metadata.name"
k -n "$RUN_NS" delete benchmarkrun "$name" --ignore-not-found --wait=true --timeout=5m >/dev/null
k -n "$RUN_NS" apply -f "$RUN_FILE" >/dev/null
run_start=$(date +%s)
say "BenchmarkRun $RUN_NS/$name applied ($RUN_FILE); following it:"
demo_follow "$RUN_NS" "$name" "$TIMEOUT"

echo
k -n "$RUN_NS" get benchmarkrun "$name"
echo
demo_report "$RUN_NS" "$name"
say "run $phase after $(elapsed $(($(date +%s) - run_start))) (demo total $(elapsed $(($(date +%s) - demo_start))))"
[ "$phase" = Succeeded ]
