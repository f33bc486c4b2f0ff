# Shared by hack/demo.sh and hack/demo-suite.sh (sourced, with ROOT set): the clock, the cluster,
# the install, and following a run or a suite with the plugin.
source "$ROOT/hack/cluster/common.sh"
demo_start=$(date +%s)
elapsed() { printf '%02d:%02d' $(($1 / 60)) $(($1 % 60)); }
say() { printf '[%s] %s\n' "$(elapsed $(($(date +%s) - demo_start)))" "$*"; }

export KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}
k() { "$KUBECTL" "$@"; }
PLUGIN=$ROOT/bin/kubectl-tpcc

# demo_cluster: the cluster of KUBECONFIG (or ~/.kube/config) when it answers, else the local one
# (DEMO_CLUSTER=local: always the local one); then CloudNativePG and the operator
# (hack/cluster/install.sh, which changes nothing cluster-wide on a cluster this project did not
# create unless TPCC_ALLOW_CLUSTER_INSTALL=1, exit 3), and the plugin (bin/kubectl-tpcc).
demo_cluster() {
  if [ "${DEMO_CLUSTER:-}" = local ]; then
    unset KUBECONFIG
  elif [ -n "${DEMO_CLUSTER:-}" ]; then
    die "DEMO_CLUSTER=$DEMO_CLUSTER: want local (or unset: the cluster of KUBECONFIG when one answers)"
  elif [ -z "${KUBECONFIG:-}" ] && [ -f "$HOME/.kube/config" ]; then
    export KUBECONFIG=$HOME/.kube/config
  fi
  if [ -n "${KUBECONFIG:-}" ] && k get --raw /readyz >/dev/null 2>&1; then
    say "using the cluster of KUBECONFIG=$KUBECONFIG ($(k config current-context 2>/dev/null || echo '?'))"
  elif local_kubeconfig=$("$ROOT/hack/cluster/status.sh" kubeconfig 2>/dev/null); then
    export KUBECONFIG=$local_kubeconfig
    say "using the local cluster, which is up (hack/cluster/down.sh removes it)"
  else
    say "bringing up the local cluster (hack/cluster/up.sh; hack/cluster/down.sh removes it)"
    export KUBECONFIG
    KUBECONFIG=$("$ROOT/hack/cluster/up.sh" | tail -1)
  fi
  INSTALL_CALLER=${INSTALL_CALLER:-make demo} "$ROOT/hack/cluster/install.sh" operator
  say "CloudNativePG and tpcc-operator ready"
  (cd "$ROOT" && go build -o "$PLUGIN" ./cmd/kubectl-tpcc)
}

# demo_follow NAMESPACE NAME TIMEOUT: `kubectl tpcc status NAME -w` — a line per change (phase, load,
# the step under way with its live tpmC and p90s; for a suite, its progress and its run under way),
# then the final status. Sets phase to Succeeded or Failed; dies when NAME did not end in TIMEOUT.
demo_follow() {
  local status=0
  "$PLUGIN" -n "$1" status "$2" -w --timeout "$3" || status=$?
  case $status in
    0) phase=Succeeded ;;
    7) phase=Failed ;;
    6) die "$2 did not end within $3" ;;
    *) die "kubectl tpcc status exited $status" ;;
  esac
}

# demo_report NAMESPACE NAME: the Markdown report on stdout and the HTML one in bin/NAME.html.
demo_report() {
  if "$PLUGIN" -n "$1" report "$2" -o md; then
    echo
    "$PLUGIN" -n "$1" report "$2" -o html -f "$ROOT/bin/$2.html" || true
    echo "HTML report: $ROOT/bin/$2.html (kubectl tpcc report $2 -o html|md|json; install: cp bin/kubectl-tpcc onto PATH)"
  fi
}
