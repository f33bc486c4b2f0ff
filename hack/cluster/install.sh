#!/usr/bin/env bash
# Installs CloudNativePG and tpcc-operator into the cluster of KUBECONFIG with README's own commands.
#
# The local cluster (hack/cluster/up.sh): builds the images offline (hack/images.sh) and imports
# them into its containerd — the local stand-in for README's `make docker-build docker-push` —,
# applies CloudNativePG's release manifest from its Go module patched for the local images (README
# applies the same manifest from its URL), then runs README's block `install-operator` verbatim
# (hack/doc-block.sh) with IMG_PREFIX=localhost/tpcc-operator and TAG=the images' content hash, and
# docs/operations.md's block `metrics-prometheus` for the local Prometheus (namespace tpcc-monitoring),
# which scrapes the operator's metrics over HTTPS.
#
# Any other cluster is not ours to change: CloudNativePG's and the operator's CRDs, ClusterRoles and
# webhooks are shared by everyone using it. Without TPCC_ALLOW_CLUSTER_INSTALL=1 this script installs
# nothing there: when both are installed already it says so and exits 0, otherwise it refuses
# (exit 3), naming the variable, before changing anything. With it, it applies CloudNativePG's
# unpatched release manifest and runs the same README block with your IMG_PREFIX and TAG (the images
# `make docker-build docker-push` pushed).
#
# Prometheus is the e2e's (it checks the operator's metrics through it), not the demo's: make demo
# installs the operator only, and a first make demo does not build Prometheus (~380 s of CPU).
#
# usage: KUBECONFIG=... hack/cluster/install.sh [operator] [prometheus]
#          operator    CloudNativePG and tpcc-operator (with docs/operations.md's block
#                      metrics-prometheus on the local cluster: secure metrics, readable by
#                      Prometheus' ServiceAccount)
#          prometheus  the local Prometheus (the local cluster only)
#        (default: both; make demo: operator)
# env:   TPCC_ALLOW_CLUSTER_INSTALL=1, IMG_PREFIX, TAG (clusters other than the local one)
set -euo pipefail
source "$(dirname "$0")/common.sh"
install_operator=false install_prometheus=false
parts_named=$#   # 0: the default, both; prometheus then goes where it can (the local cluster)
[ $# -gt 0 ] || set -- operator prometheus
for part in "$@"; do
  case "$part" in
    operator) install_operator=true ;;
    prometheus) install_prometheus=true ;;
    *) echo "install.sh: unknown part '$part': want operator and/or prometheus" >&2; exit 2 ;;
  esac
done
NS=tpcc-operator-system   # README's install-operator block installs there
start_time=$(date +%s)
step() { log "[$(($(date +%s) - start_time))s] $*"; }

KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}
: "${KUBECONFIG:?set KUBECONFIG to the cluster to install into}"
k() { "$KUBECTL" "$@"; }
k get --raw /readyz >/dev/null || die "the cluster of KUBECONFIG=$KUBECONFIG does not answer"

# ours: the cluster of KUBECONFIG is the local one up.sh brought up (its kubeconfig, or one whose
# current context names the same API server while that server runs).
ours() {
  [ "$(realpath -m "$KUBECONFIG")" = "$(realpath -m "$KUBECONFIG_FILE")" ] && return 0
  pid_alive kube-apiserver && [ -f "$KUBECONFIG_FILE" ] || return 1
  local server local_server
  server=$(k config view --minify -o jsonpath='{.clusters[0].cluster.server}' 2>/dev/null) || return 1
  local_server=$(k --kubeconfig "$KUBECONFIG_FILE" config view --minify -o jsonpath='{.clusters[0].cluster.server}' 2>/dev/null) || return 1
  [ -n "$server" ] && [ "$server" = "$local_server" ]
}

# installed: CloudNativePG's and the operator's CRDs exist and a manager is available (read-only).
installed() {
  k get crd clusters.postgresql.cnpg.io benchmarkruns.bench.oltp.io benchmarksuites.bench.oltp.io >/dev/null 2>&1 || return 1
  local available
  available=$(k get deployments -A -l app.kubernetes.io/name=tpcc-operator -o jsonpath='{.items[*].status.availableReplicas}' 2>/dev/null) || return 1
  [[ "$available" =~ [1-9] ]]
}

if $install_prometheus && [ "$parts_named" -gt 0 ] && ! ours; then
  echo "install.sh: prometheus: the local Prometheus goes on the local cluster only (hack/cluster/up.sh); KUBECONFIG=$KUBECONFIG names another. docs/metrics.md shows how your Prometheus scrapes the operator." >&2
  exit 2
fi

if ! ours && [ "${TPCC_ALLOW_CLUSTER_INSTALL:-}" != 1 ]; then
  context=$(k config current-context 2>/dev/null || echo '?')
  if installed; then
    step "the cluster of KUBECONFIG=$KUBECONFIG (context $context) is not the local one and already runs CloudNativePG and tpcc-operator: installing nothing (TPCC_ALLOW_CLUSTER_INSTALL=1 would upgrade them)"
    exit 0
  fi
  cat >&2 <<EOF
cluster: refusing to install into the cluster of KUBECONFIG=$KUBECONFIG (context $context).
  This project did not create that cluster, and what it would install there is cluster-wide:
  CloudNativePG 1.29.1 (its CRDs, webhooks and operator, server-side applied over any CloudNativePG
  already there) and tpcc-operator's CRDs and ClusterRoles. Nothing was changed.
  - To install them there anyway (you own the cluster, and pushed the images with
    make docker-build docker-push IMG_PREFIX=… TAG=…):
      TPCC_ALLOW_CLUSTER_INSTALL=1 IMG_PREFIX=… TAG=… $(basename "${INSTALL_CALLER:-$0}")
  - Or install them yourself as README's "Install on your own cluster" shows; then this
    command uses them without installing anything.
  - Or use a local cluster this project brings up and removes: unset KUBECONFIG, move
    ~/.kube/config aside, or set DEMO_CLUSTER=local for make demo.
EOF
  exit 3
fi

HELM=$("$ROOT/hack/cluster/helm.sh")
# run_doc_block FILE NAME [VAR=value...]: a documented block, verbatim, from the repository root,
# with helm and kubectl on PATH.
run_doc_block() {
  local file=$1 name=$2 block
  shift 2
  block=$("$ROOT/hack/doc-block.sh" "$ROOT/$file" "$name")
  step "running $file's block $name: $(tr '\n' ' ' <<<"$block" | tr -s ' ')"
  (cd "$ROOT" && env "$@" PATH="$(dirname "$HELM"):$(dirname "$KUBECTL"):$PATH" bash -euo pipefail -c "$block") >/dev/null
}

# import_into I PAIR...: IMAGE=ARCHIVE pairs into node i's containerd, each only where it is missing.
import_into() {
  local i=$1 present pair
  shift
  present=$(ctr_node "$i" images ls -q)
  for pair in "$@"; do
    grep -qxF "${pair%%=*}" <<<"$present" || ctr_node "$i" images import "${pair#*=}" >/dev/null
  done
}

# import_images PAIR...: into every node's containerd, side by side (a pod may land on any node).
import_images() {
  [ -f "$STATE/nodes.count" ] && NODES=$(cat "$STATE/nodes.count")
  local importers=() i
  for i in $(seq 0 $((NODES - 1))); do
    import_into "$i" "$@" &
    importers+=($!)
  done
  for p in "${importers[@]}"; do wait "$p" || die "importing the images into a node's containerd failed"; done
}

if $install_operator; then
  if ours; then
    IMAGES=$("$ROOT/hack/images.sh" cluster cnpg project)
    source "$IMAGES/images.env"
    import_images "$CNPG_OPERATOR_IMAGE=$CNPG_OPERATOR_ARCHIVE" "$POSTGRES_IMAGE=$POSTGRES_ARCHIVE" "$PGBOUNCER_IMAGE=$PGBOUNCER_ARCHIVE" \
      "$MANAGER_IMAGE=${PROJECT_ARCHIVES%% *}" "$CLIENT_IMAGE=${PROJECT_ARCHIVES##* }"
    step "images imported into the local cluster's $NODES nodes"
    # The operators run on the system node (common.sh), away from the database nodes.
    cnpg_manifest() { "$ROOT/hack/cluster/cnpg.sh" "$IMAGES" | pin_system; }
    # hack/images.sh names both project images PREFIX/manager:TAG and PREFIX/tpcc:TAG, as make docker-build does.
    IMG_PREFIX=${MANAGER_IMAGE%/manager:*}
    TAG=${MANAGER_IMAGE##*:}
    [ "$CLIENT_IMAGE" = "$IMG_PREFIX/tpcc:$TAG" ] || die "images.env: $CLIENT_IMAGE is not $IMG_PREFIX/tpcc:$TAG"
  else
    : "${IMG_PREFIX:?set IMG_PREFIX (and TAG) to where make docker-push pushed the images, e.g. registry.example.com/tpcc-operator}"
    : "${TAG:?set TAG to the tag make docker-push pushed}"
    cnpg_dir=$(go mod download -json github.com/cloudnative-pg/cloudnative-pg@v1.29.1 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
    cnpg_manifest() { cat "$cnpg_dir/releases/cnpg-1.29.1.yaml"; }
  fi

  # CloudNativePG: its CRDs exceed the client-side apply annotation limit, hence server-side apply.
  cnpg_manifest | k apply --server-side --force-conflicts -f - >/dev/null
  k -n cnpg-system rollout status deploy/cnpg-controller-manager --timeout=300s >/dev/null
  step "CloudNativePG ready"

  run_doc_block README.md install-operator IMG_PREFIX="$IMG_PREFIX" TAG="$TAG"
  if ours; then
    # The manager on the system node too: a node-loss fault on a database node must not take it away.
    k -n "$NS" patch deployment tpcc-operator-controller-manager --type merge \
      -p "{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"$SYSTEM_NODE\"}}}}}" >/dev/null
    k -n "$NS" rollout status deployment/tpcc-operator-controller-manager --timeout=300s >/dev/null
    # Secure metrics, readable by the local Prometheus' ServiceAccount: set with the operator, not
    # with Prometheus, so that adding Prometheus later (install.sh prometheus, beside a run) does
    # not restart the manager.
    run_doc_block docs/operations.md metrics-prometheus PROMETHEUS_SA=prometheus PROMETHEUS_NAMESPACE=tpcc-monitoring
  fi
  step "tpcc-operator $TAG ready in $NS (helm release tpcc-operator)"
fi

if $install_prometheus && ours; then
  IMAGES=$("$ROOT/hack/images.sh" monitoring)
  source "$IMAGES/images.env"
  # Pinned to the system node (pin_system): imported there only.
  import_into "${SYSTEM_NODE##*-}" "$PROMETHEUS_IMAGE=$PROMETHEUS_ARCHIVE"
  "$ROOT/hack/cluster/prometheus.sh" "$IMAGES" "$NS" | pin_system | k apply -f - >/dev/null
  k -n tpcc-monitoring rollout status deploy/prometheus --timeout=180s >/dev/null
  step "Prometheus ${PROMETHEUS_IMAGE##*:} ready in tpcc-monitoring, scraping the operator"
fi
