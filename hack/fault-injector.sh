#!/usr/bin/env bash
# Installs or removes the opt-in fault injector (docs/failover.md, "Network faults"): a privileged
# DaemonSet in the namespace tpcc-fault-injector that applies the NetworkFaults the manager
# creates for spec.faults NetworkDelay and Partition. Nothing else in the project runs privileged,
# and the manager's own permissions do not change: it only creates and reads NetworkFaults.
#
#   install     the local cluster: builds the image (hack/images.sh injector) and imports it into
#               every node; elsewhere: FAULT_INJECTOR_IMAGE names the image you pushed (built by
#               hack/images.sh injector as an archive). Applies config/fault-injector with it and
#               waits for a pod on every node.
#   uninstall   removes the namespace, its ClusterRole and binding. NetworkFaults still active are
#               healed first (the injector heals what is deleted), so delete the runs before.
#   status      the injector's pods and the NetworkFaults of the cluster.
#
# usage: KUBECONFIG=... hack/fault-injector.sh install|uninstall|status
set -euo pipefail
source "$(dirname "$0")/cluster/common.sh"
KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}
k() { "$KUBECTL" "$@"; }
NS=tpcc-fault-injector
# ours: KUBECONFIG is the local cluster's (hack/cluster/up.sh), whose nodes' containerd we import into.
ours() { [ -f "$STATE/nodes.count" ] && [ "$(realpath -m "${KUBECONFIG:-}")" = "$(realpath -m "$KUBECONFIG_FILE")" ]; }

case "${1:-}" in
install)
  if [ -z "${FAULT_INJECTOR_IMAGE:-}" ]; then
    ours || die "not the local cluster: set FAULT_INJECTOR_IMAGE to the fault injector's image in your registry"
    IMAGES=$("$ROOT/hack/images.sh" injector)
    source "$IMAGES/images.env"
    [ -n "${FAULT_INJECTOR_IMAGE:-}" ] || die "hack/images.sh injector named no image"
    NODES=$(cat "$STATE/nodes.count")
    for i in $(seq 0 $((NODES - 1))); do
      ctr_node "$i" images ls -q | grep -qxF "$FAULT_INJECTOR_IMAGE" || ctr_node "$i" images import "$FAULT_INJECTOR_ARCHIVE" >/dev/null &
    done
    wait
  fi
  k kustomize "$ROOT/config/fault-injector" | sed "s#image: tpcc-operator/fault-injector:dev#image: $FAULT_INJECTOR_IMAGE#" | k apply -f - >/dev/null
  k -n "$NS" rollout status daemonset/fault-injector --timeout=300s >/dev/null
  log "fault injector ${FAULT_INJECTOR_IMAGE##*:} ready in $NS on $(k -n "$NS" get pods -o name | wc -l) nodes"
  ;;
uninstall)
  if k get namespace "$NS" -o name >/dev/null 2>&1; then
    k delete namespace "$NS" --wait=true >/dev/null
  fi
  k delete --ignore-not-found clusterrolebinding/tpcc-fault-injector clusterrole/tpcc-fault-injector >/dev/null
  log "fault injector removed"
  ;;
status)
  k -n "$NS" get pods -o wide 2>/dev/null || echo "the fault injector is not installed"
  k get networkfaults -A 2>/dev/null || true
  ;;
*) die "usage: hack/fault-injector.sh install|uninstall|status" ;;
esac
