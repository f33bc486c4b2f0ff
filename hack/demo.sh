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

# One line per change: phase, load progress, the running step with its live tpmC and p90s.
progress='{{with .status.phase}}{{.}}{{end}}|{{with .status.load}}{{.warehousesLoaded}}/{{.warehouses}}{{end}}|{{with .status.current}}step {{.index}}: {{.activeWarehouses}} warehouses, {{with .elapsed}}{{.}}{{else}}starting{{end}}{{with .tpmC}}, tpmC {{.}}{{end}}{{with .p90}}, p90{{range $t, $d := .}} {{$t}} {{$d}}{{end}}{{end}}{{end}}|{{with .status.steps}}{{len .}}{{else}}0{{end}}'
case $TIMEOUT in
  *m) timeout_seconds=$((${TIMEOUT%m} * 60)) ;;
  *s) timeout_seconds=${TIMEOUT%s} ;;
  *) die "DEMO_TIMEOUT=$TIMEOUT: want minutes (45m) or seconds (600s)" ;;
esac
deadline=$(($(date +%s) + timeout_seconds))
last="" last_print=0
while :; do
  line=$(k -n "$RUN_NS" get benchmarkrun "$name" -o go-template="$progress" 2>/dev/null) || line=""
  IFS='|' read -r phase loaded current steps <<<"$line"
  # A new phase or step shows at once; live figures of a running step at most every 15 s.
  now=$(date +%s)
  if [ -n "$phase" ] && { [ "${line%%|*}|${line##*|}" != "${last%%|*}|${last##*|}" ] ||
    { [ "$line" != "$last" ] && [ $((now - last_print)) -ge 15 ]; }; }; then
    text="$phase"
    [ -n "$loaded" ] && [ "$phase" = Loading ] && text+=" — $loaded warehouses loaded"
    [ -n "$current" ] && text+=" — $current"
    [ "${steps:-0}" != 0 ] && text+=" — $steps step(s) recorded"
    say "$text"
    last=$line last_print=$now
  fi
  case $phase in Succeeded | Failed) break ;; esac
  [ "$(date +%s)" -lt "$deadline" ] || die "the run did not end within $TIMEOUT"
  sleep 5
done

echo
k -n "$RUN_NS" get benchmarkrun "$name"
echo
if [ "$phase" = Failed ]; then
  k -n "$RUN_NS" get benchmarkrun "$name" -o go-template='{{range .status.conditions}}{{.type}}={{.status}} {{.reason}}: {{.message}}{{"\n"}}{{end}}'
fi
report=$(k -n "$RUN_NS" get benchmarkrun "$name" -o go-template='{{with .status.report}}{{.configMapName}}{{end}}')
if [ -n "$report" ]; then
  k -n "$RUN_NS" get configmap "$report" -o go-template='{{index .data "report.md"}}'
  echo
  echo "Full report: kubectl -n $RUN_NS get configmap $report -o jsonpath='{.data.report\.json}'"
fi
say "run $phase after $(elapsed $(($(date +%s) - run_start))) (demo total $(elapsed $(($(date +%s) - demo_start))))"
[ "$phase" = Succeeded ]
