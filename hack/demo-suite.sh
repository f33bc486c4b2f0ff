#!/usr/bin/env bash
# `make demo-suite`: one BenchmarkSuite end to end on a real cluster, like `make demo` (hack/demo.sh).
#   1. the cluster of KUBECONFIG (or ~/.kube/config) when it answers, else the local one (hack/cluster/up.sh)
#   2. images, CloudNativePG and the operator (hack/cluster/install.sh)
#   3. config/samples/suite-demo.yaml (or DEMO_SUITE=file), followed run by run until it ends, then
#      its comparison table (comparison.md of the <suite>-comparison ConfigMap)
#
# env: DEMO_SUITE (config/samples/suite-demo.yaml), DEMO_NAMESPACE (default), DEMO_TIMEOUT (90m)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/cluster/common.sh"
SUITE_FILE=${DEMO_SUITE:-$ROOT/config/samples/suite-demo.yaml}
SUITE_NS=${DEMO_NAMESPACE:-default}
TIMEOUT=${DEMO_TIMEOUT:-90m}
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

name=$(sed -n 's/^  name: *//p' "$SUITE_FILE" | head -1)
[ -n "$name" ] || die "$SUITE_FILE: no metadata.name"
# The suite owns its runs and comparison: deleting it deletes them (foreground, so a new suite
# never finds the last one's runs).
k -n "$SUITE_NS" delete benchmarksuite "$name" --ignore-not-found --cascade=foreground --wait=true --timeout=10m >/dev/null
k -n "$SUITE_NS" apply -f "$SUITE_FILE" >/dev/null
suite_start=$(date +%s)
say "BenchmarkSuite $SUITE_NS/$name applied ($SUITE_FILE); following it:"

case $TIMEOUT in
  *m) timeout_seconds=$((${TIMEOUT%m} * 60)) ;;
  *s) timeout_seconds=${TIMEOUT%s} ;;
  *) die "DEMO_TIMEOUT=$TIMEOUT: want minutes (90m) or seconds (600s)" ;;
esac
deadline=$(($(date +%s) + timeout_seconds))
# One line per change: the suite's phase and progress, the run under way with its phase and steps.
suite_line='{{with .status.phase}}{{.}}{{end}}|{{with .status.progress}}{{.}}{{end}}|{{range .status.runs}}{{if .phase}}{{if and (ne .phase "Succeeded") (ne .phase "Failed")}}{{.name}}{{end}}{{end}}{{end}}'
run_line='{{with .status.phase}}{{.}}{{end}}{{with .status.load}}, {{.warehousesLoaded}}/{{.warehouses}} warehouses loaded{{end}}{{with .status.steps}}, {{len .}} step(s) recorded{{end}}'
last=""
while :; do
  line=$(k -n "$SUITE_NS" get benchmarksuite "$name" -o go-template="$suite_line" 2>/dev/null) || line=""
  IFS='|' read -r phase progress current <<<"$line"
  detail=""
  if [ -n "$current" ]; then
    detail=$(k -n "$SUITE_NS" get benchmarkrun "$current" -o go-template="$run_line" 2>/dev/null) || detail=""
  fi
  text="${phase:-Pending} — runs ended ${progress:-0/?}${current:+ — $current: $detail}"
  if [ "$text" != "$last" ]; then
    say "$text"
    last=$text
  fi
  case $phase in Succeeded | Failed) break ;; esac
  [ "$(date +%s)" -lt "$deadline" ] || die "the suite did not end within $TIMEOUT"
  sleep 10
done

echo
k -n "$SUITE_NS" get benchmarksuite "$name"
echo
k -n "$SUITE_NS" get benchmarkruns -l "bench.oltp.io/suite=$name"
echo
report=$(k -n "$SUITE_NS" get benchmarksuite "$name" -o go-template='{{with .status.report}}{{.configMapName}}{{end}}')
if [ -n "$report" ]; then
  k -n "$SUITE_NS" get configmap "$report" -o go-template='{{index .data "comparison.md"}}'
  echo
  echo "Comparison as JSON: kubectl -n $SUITE_NS get configmap $report -o jsonpath='{.data.comparison\.json}'"
fi
say "suite $phase after $(elapsed $(($(date +%s) - suite_start))) (demo total $(elapsed $(($(date +%s) - demo_start))))"
[ "$phase" = Succeeded ]
