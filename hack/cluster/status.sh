#!/usr/bin/env bash
# Reports the local cluster: its processes (the control plane's, each node's), its nodes and pods.
#
# usage: hack/cluster/status.sh              human-readable; exit 1 when not up (or a node's
#                                            processes are down, e.g. lost by node.sh)
#        hack/cluster/status.sh kubeconfig   print the admin kubeconfig's path (exit 1 when not up)
set -uo pipefail
source "$(dirname "$0")/common.sh"
KUBECTL=${KUBECTL:-$(command -v kubectl || echo "$("$ROOT/hack/k8s-bins.sh" --dir)/kubectl")}
if [ "${1:-}" = kubeconfig ]; then
  pid_alive kube-apiserver && api_ready && { echo "$KUBECONFIG_FILE"; exit 0; }
  exit 1
fi
[ -f "$STATE/nodes.count" ] && NODES=$(cat "$STATE/nodes.count")
names=("${CONTROL_PLANE[@]}")
for i in $(seq 0 $((NODES - 1))); do
  for p in "${NODE_PROCESSES[@]}"; do names+=("$p-$(node_name "$i")"); done
done
up=0
for p in "${names[@]}"; do
  if pid_alive "$p"; then echo "$p: running (pid $(cat "$STATE/pids/$p"))"; up=$((up + 1)); else echo "$p: stopped"; fi
done
for f in "$STATE"/lost/*; do [ -f "$f" ] && echo "$(basename "$f"): lost at $(cat "$f") (hack/cluster/node.sh restore $(basename "$f"))"; done
if [ "$up" = 0 ]; then echo "cluster: down"; exit 1; fi
if ! api_ready; then echo "cluster: API server not ready"; exit 1; fi
export KUBECONFIG=$KUBECONFIG_FILE
"$KUBECTL" get nodes -o wide
"$KUBECTL" get pods -A -o wide
echo "export KUBECONFIG=$KUBECONFIG_FILE"
[ "$up" = ${#names[@]} ]
