#!/usr/bin/env bash
# `make e2e`: the e2e suite (e2e/, build tag e2e) against the cluster of KUBECONFIG when one
# answers, else against the local cluster, which it brings up and, unless E2E_KEEP_CLUSTER=1, takes
# down again afterwards. The suite itself installs CloudNativePG and the operator
# (hack/cluster/install.sh: README's install commands; on a cluster this project did not create only
# when they are installed already or with TPCC_ALLOW_CLUSTER_INSTALL=1) and ends with README's
# uninstall, after which nothing of the operator's may be left (E2E_SKIP_UNINSTALL=1 keeps it).
#
# Two tiers (e2e/tier_test.go, docs/testing.md): by default the cases CI runs; E2E_LONG=1 (make
# e2e-long) adds the long ones (node loss, failover, the demo suite, the guided search, provoked
# bottlenecks, a broken sustained phase, placement on a run of its own). E2E_DEMO_RUN=
# namespace/name: the demo's cases read that run of make demo.
#
# env: E2E_KEEP_CLUSTER=1, E2E_RUN (a go test -run pattern), E2E_TIMEOUT (55m; 150m with E2E_LONG=1),
#      E2E_PARALLEL (cases at once: 4; 3 with E2E_LONG=1), E2E_LONG, E2E_DEMO_RUN (the demo's cases
#      wait for that run to end: .ci/run starts the suite beside make demo), E2E_SKIP_INSTALL,
#      E2E_UNINSTALL_AFTER (e2e/e2e_test.go)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/hack/cluster/common.sh"
start=$(date +%s)
export KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}

brought_up=false
if [ -z "${KUBECONFIG:-}" ] && [ -f "$HOME/.kube/config" ]; then export KUBECONFIG=$HOME/.kube/config; fi
if [ -n "${KUBECONFIG:-}" ] && "$KUBECTL" get --raw /readyz >/dev/null 2>&1; then
  log "e2e against the cluster of KUBECONFIG=$KUBECONFIG"
else
  export KUBECONFIG
  KUBECONFIG=$("$ROOT/hack/cluster/up.sh" | tail -1)
  brought_up=true
fi
finish() {
  local rc=$?
  if $brought_up && [ "${E2E_KEEP_CLUSTER:-0}" != 1 ]; then "$ROOT/hack/cluster/down.sh" || rc=1; fi
  log "e2e $([ $rc = 0 ] && echo passed || echo FAILED) in $(($(date +%s) - start))s"
  exit $rc
}
trap finish EXIT
cd "$ROOT"
# -parallel: the cases mostly wait on TPC-C's wall clock, but each brings up a database of its own:
# more than four at once starve a 2-core machine (eight at once did: cases hit their 25-minute
# waits). TestNodeLoss, the one sequential case (long tier), runs first and alone: the node it takes
# away holds no other case's pods.
if [ "${E2E_LONG:-0}" = 1 ]; then parallel=${E2E_PARALLEL:-3} timeout=${E2E_TIMEOUT:-150m}; else parallel=${E2E_PARALLEL:-4} timeout=${E2E_TIMEOUT:-55m}; fi
# -vet=off: make verify vets ./e2e (go vet -tags e2e, every analyzer), as the Makefile says for make test.
go test -tags e2e -count=1 -vet=off -parallel "$parallel" -timeout "$timeout" -v ${E2E_RUN:+-run "$E2E_RUN"} ./e2e/
