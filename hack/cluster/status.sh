#!/usr/bin/env bash
# Reports the local cluster: its processes, its node and its add-ons.
#
# usage: hack/cluster/status.sh              human-readable; exit 1 when not up
#        hack/cluster/status.sh kubeconfig   print the admin kubeconfig's path (exit 1 when not up)
set -uo pipefail
source "$(dirname "$0")/common.sh"
KUBECTL=${KUBECTL:-$(command -v kubectl || echo "$CACHE/k8s-$K8S_VERSION-etcd-3.6.6/kubectl")}
if [ "${1:-}" = kubeconfig ]; then
  pid_alive kube-apiserver && api_ready && { echo "$KUBECONFIG_FILE"; exit 0; }
  exit 1
fi
up=0
for p in "${PROCESSES[@]}"; do
  if pid_alive "$p"; then echo "$p: running (pid $(cat "$STATE/pids/$p"))"; up=$((up + 1)); else echo "$p: stopped"; fi
done
if [ "$up" = 0 ]; then echo "cluster: down"; exit 1; fi
if ! api_ready; then echo "cluster: API server not ready"; exit 1; fi
export KUBECONFIG=$KUBECONFIG_FILE
"$KUBECTL" get nodes -o wide
"$KUBECTL" get pods -A -o wide
echo "export KUBECONFIG=$KUBECONFIG_FILE"
[ "$up" = ${#PROCESSES[@]} ]
