#!/usr/bin/env bash
# `make demo-suite`: one BenchmarkSuite end to end on a real cluster, like `make demo` (hack/demo.sh).
#   1. the cluster of KUBECONFIG (or ~/.kube/config) when it answers, else the local one
#      (hack/cluster/up.sh); DEMO_CLUSTER=local always takes the local one
#   2. CloudNativePG and the operator (hack/cluster/install.sh): on the local cluster it builds and
#      installs them; on a cluster this project did not create it installs nothing — it uses them
#      when they are installed already, and otherwise refuses (exit 3) unless
#      TPCC_ALLOW_CLUSTER_INSTALL=1 (with IMG_PREFIX and TAG of images you pushed)
#   3. config/samples/suite-demo.yaml (or DEMO_SUITE=file), followed run by run until it ends with
#      `kubectl tpcc status -w`, then its comparison (Markdown here, HTML in bin/NAME.html)
#
# env: DEMO_SUITE (config/samples/suite-demo.yaml), DEMO_NAMESPACE (default), DEMO_TIMEOUT (90m),
#      DEMO_CLUSTER, TPCC_ALLOW_CLUSTER_INSTALL, IMG_PREFIX, TAG
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/demo-lib.sh"
SUITE_FILE=${DEMO_SUITE:-$ROOT/config/samples/suite-demo.yaml}
SUITE_NS=${DEMO_NAMESPACE:-default}
TIMEOUT=${DEMO_TIMEOUT:-90m}

INSTALL_CALLER="make demo-suite" demo_cluster
name=$(sed -n 's/^  name: *//p' "$SUITE_FILE" | head -1)
[ -n "$name" ] || die "$SUITE_FILE: no metadata.name"
# The suite owns its runs and comparison: deleting it deletes them (foreground, so a new suite
# never finds the last one's runs).
k -n "$SUITE_NS" delete benchmarksuite "$name" --ignore-not-found --cascade=foreground --wait=true --timeout=10m >/dev/null
k -n "$SUITE_NS" apply -f "$SUITE_FILE" >/dev/null
suite_start=$(date +%s)
say "BenchmarkSuite $SUITE_NS/$name applied ($SUITE_FILE); following it:"
demo_follow "$SUITE_NS" "$name" "$TIMEOUT"

echo
"$PLUGIN" -n "$SUITE_NS" status
echo
demo_report "$SUITE_NS" "$name"
say "suite $phase after $(elapsed $(($(date +%s) - suite_start))) (demo total $(elapsed $(($(date +%s) - demo_start))))"
[ "$phase" = Succeeded ]
