#!/usr/bin/env bash
# `make demo`: one BenchmarkRun end to end on a real cluster.
#   1. the cluster of KUBECONFIG (or ~/.kube/config) when it answers, else the local one (hack/cluster/up.sh)
#   2. images, CloudNativePG and the operator (hack/cluster/install.sh)
#   3. config/samples/demo.yaml (or DEMO_RUN=file), followed until it ends, then its report
#
# env: DEMO_RUN (config/samples/demo.yaml), DEMO_NAMESPACE (default), DEMO_TIMEOUT (45m)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/cluster/common.sh"
RUN_FILE=${DEMO_RUN:-$ROOT/config/samples/demo.yaml}
RUN_NS=${DEMO_NAMESPACE:-default}
TIMEOUT=${DEMO_TIMEOUT:-45m}
demo_start=$(date +%s)
say() { printf '[%s] %s\n' "$(elapsed $(($(date +%s) - demo_start)))" "$*"; }
elapsed() { printf '%02d:%02d' $(($1 / 60)) $(($1 % 60)); }

export KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}
k() { "$KUBECTL" "$@"; }

if [ -z "${KUBECONFIG:-}" ] && [ -f "$HOME/.kube/config" ]; then export KUBECONFIG=$HOME/.kube/config; fi
if [ -n "${KUBECONFIG:-}" ] && k get --raw /readyz >/dev/null 2>&1; then
  say "using the cluster of KUBECONFIG=$KUBECONFIG ($(k config current-context 2>/dev/null || echo '?'))"
else
  say "no cluster answers: bringing up the local one (hack/cluster/up.sh; hack/cluster/down.sh removes it)"
  export KUBECONFIG
  KUBECONFIG=$("$ROOT/hack/cluster/up.sh" | tail -1)
fi

"$ROOT/hack/cluster/install.sh"
say "CloudNativePG and tpcc-operator installed"

name=$(sed -n 's/^  name: *//p' "$RUN_FILE" | head -1)
[ -n "$name" ] || die "$RUN_FILE: no metadata.name"
k -n "$RUN_NS" delete benchmarkrun "$name" --ignore-not-found --wait=true --timeout=5m >/dev/null
k -n "$RUN_NS" apply -f "$RUN_FILE" >/dev/null
run_start=$(date +%s)
say "BenchmarkRun $RUN_NS/$name applied ($RUN_FILE); following it:"

# The progress view is the plugin's: `kubectl tpcc status -w` prints a line per change (phase,
# load, the running step with its live tpmC and p90s; live figures at most every 15 s), then the
# final status. Exit 0: Succeeded, 7: Failed, 6: not ended within DEMO_TIMEOUT (docs/kubectl-tpcc.md).
plugin=$ROOT/bin/kubectl-tpcc
(cd "$ROOT" && go build -o "$plugin" ./cmd/kubectl-tpcc)
status=0
"$plugin" -n "$RUN_NS" status "$name" -w --timeout "$TIMEOUT" || status=$?
case $status in
  0) phase=Succeeded ;;
  7) phase=Failed ;;
  6) die "the run did not end within $TIMEOUT" ;;
  *) die "kubectl tpcc status exited $status" ;;
esac

echo
k -n "$RUN_NS" get benchmarkrun "$name"
echo
if "$plugin" -n "$RUN_NS" report "$name" -o md; then
  echo
  "$plugin" -n "$RUN_NS" report "$name" -o html -f "$ROOT/bin/$name.html" || true
  echo "HTML report: $ROOT/bin/$name.html (kubectl tpcc report $name -o html|md|json; install: cp bin/kubectl-tpcc onto PATH)"
fi
say "run $phase after $(elapsed $(($(date +%s) - run_start))) (demo total $(elapsed $(($(date +%s) - demo_start))))"
[ "$phase" = Succeeded ]
