#!/usr/bin/env bash
# Installs CloudNativePG and tpcc-operator (through its Helm chart) into the cluster of KUBECONFIG.
#
# On the local cluster (hack/cluster/up.sh) it first builds and imports the images (hack/images.sh)
# and installs CloudNativePG from its module's release manifest patched for them. On any other
# cluster it installs CloudNativePG's unpatched release manifest (its images come from ghcr.io) and
# the operator with MANAGER_IMAGE and CLIENT_IMAGE, which you built with the Dockerfile and pushed.
# On the local cluster it also runs Prometheus (hack/cluster/prometheus.yaml, namespace
# tpcc-monitoring) scraping the operator, whose metrics are served securely (metrics.secure) to
# Prometheus' ServiceAccount only (metrics.readerSubjects).
#
# usage: KUBECONFIG=... hack/cluster/install.sh
# env:   OPERATOR_NAMESPACE (tpcc-operator-system), MANAGER_IMAGE, CLIENT_IMAGE, POSTGRES_IMAGE
set -euo pipefail
source "$(dirname "$0")/common.sh"
NS=${OPERATOR_NAMESPACE:-tpcc-operator-system}
start_time=$(date +%s)
step() { log "[$(($(date +%s) - start_time))s] $*"; }

KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}
HELM=$("$ROOT/hack/cluster/helm.sh")
: "${KUBECONFIG:?set KUBECONFIG to the cluster to install into}"
k() { "$KUBECTL" "$@"; }
k get --raw /readyz >/dev/null || die "the cluster of KUBECONFIG=$KUBECONFIG does not answer"

if [ "$(realpath "$KUBECONFIG")" = "$(realpath -m "$KUBECONFIG_FILE")" ]; then
  IMAGES=$("$ROOT/hack/images.sh" cluster cnpg project monitoring)
  source "$IMAGES/images.env"
  [ -f "$STATE/nodes.count" ] && NODES=$(cat "$STATE/nodes.count")
  # Into every node's containerd, side by side: a pod may land on any node.
  importers=()
  for i in $(seq 0 $((NODES - 1))); do
    (
      present=$(ctr_node "$i" images ls -q)
      for pair in "$CNPG_OPERATOR_IMAGE=$CNPG_OPERATOR_ARCHIVE" "$POSTGRES_IMAGE=$POSTGRES_ARCHIVE" \
        "$MANAGER_IMAGE=${PROJECT_ARCHIVES%% *}" "$CLIENT_IMAGE=${PROJECT_ARCHIVES##* }" "$PROMETHEUS_IMAGE=$PROMETHEUS_ARCHIVE"; do
        grep -qxF "${pair%%=*}" <<<"$present" || ctr_node "$i" images import "${pair#*=}" >/dev/null
      done
    ) &
    importers+=($!)
  done
  for p in "${importers[@]}"; do wait "$p" || die "importing the images into a node's containerd failed"; done
  step "images imported into the local cluster's $NODES nodes"
  # The operators run on the system node (common.sh), away from the database nodes.
  cnpg_manifest() { "$ROOT/hack/cluster/cnpg.sh" "$IMAGES" | pin_system; }
  pull_policy=Never
  local_prometheus=true
  pinned=(--set-string "nodeSelector.kubernetes\\.io/hostname=$SYSTEM_NODE")
else
  : "${MANAGER_IMAGE:?on a cluster other than the local one, set MANAGER_IMAGE (and CLIENT_IMAGE) to images built with the Dockerfile and pushed to a registry the cluster pulls from}"
  : "${CLIENT_IMAGE:?set CLIENT_IMAGE to the tpcc client image (Dockerfile target client)}"
  cnpg_dir=$(go mod download -json github.com/cloudnative-pg/cloudnative-pg@v1.29.1 | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  cnpg_manifest() { cat "$cnpg_dir/releases/cnpg-1.29.1.yaml"; }
  pull_policy=IfNotPresent
  local_prometheus=false
  pinned=()
fi

# CloudNativePG: its CRDs exceed the client-side apply annotation limit, hence server-side apply.
cnpg_manifest | k apply --server-side --force-conflicts -f - >/dev/null
k -n cnpg-system rollout status deploy/cnpg-controller-manager --timeout=300s >/dev/null
step "CloudNativePG ready"

repo() { echo "${1%:*}"; }
tag() { echo "${1##*:}"; }
set_args=(--set "image.repository=$(repo "$MANAGER_IMAGE")" --set "image.tag=$(tag "$MANAGER_IMAGE")"
  --set "image.pullPolicy=$pull_policy"
  --set "clientImage.repository=$(repo "$CLIENT_IMAGE")" --set "clientImage.tag=$(tag "$CLIENT_IMAGE")"
  --set "clientImage.pullPolicy=$pull_policy")
[ -n "${POSTGRES_IMAGE:-}" ] && set_args+=(--set "databaseImages.postgres=$POSTGRES_IMAGE")
if $local_prometheus; then
  set_args+=(--set metrics.secure=true --set "metrics.readerSubjects[0].kind=ServiceAccount"
    --set "metrics.readerSubjects[0].name=prometheus" --set "metrics.readerSubjects[0].namespace=tpcc-monitoring")
fi
"$HELM" upgrade --install tpcc-operator "$ROOT/charts/tpcc-operator" --namespace "$NS" --create-namespace \
  "${set_args[@]}" ${pinned[@]+"${pinned[@]}"} --wait --timeout 5m >/dev/null
# The operator's own pods meet the restricted Pod Security profile (as config/default declares).
k label namespace "$NS" pod-security.kubernetes.io/enforce=restricted --overwrite >/dev/null
step "tpcc-operator $(tag "$MANAGER_IMAGE") ready in $NS (helm release tpcc-operator)"

if $local_prometheus; then
  "$ROOT/hack/cluster/prometheus.sh" "$IMAGES" "$NS" | pin_system | k apply -f - >/dev/null
  k -n tpcc-monitoring rollout status deploy/prometheus --timeout=180s >/dev/null
  step "Prometheus ${PROMETHEUS_IMAGE##*:} ready in tpcc-monitoring, scraping the operator"
fi
