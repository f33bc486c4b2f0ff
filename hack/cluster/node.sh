#!/usr/bin/env bash
# Takes a node of the local cluster away abruptly, as if its machine lost power, and brings it back.
#
#   lose NODE      At one instant the node's kubelet, containerd, containerd's shims and every
#                  container on it stop (the node's cgroup is frozen), its pods' network links
#                  are cut (their veths deleted: peers see a host that no longer answers, not a
#                  closed connection), and then every one of those processes is killed (SIGKILL,
#                  delivered as the cgroup thaws; nothing runs a shutdown path, no FIN or RST
#                  leaves the node). Prints the moment of the loss (UTC, RFC 3339, ms).
#   restore NODE   Starts the node's containerd and kubelet again with the same configuration and
#                  data — its folder under $STATE/nodes and its volumes, like a machine's disk —
#                  and waits until the node is Ready. containerd and kubelet recover from the
#                  crash as after a power cut: dead containers are cleaned up and the node's pods
#                  started again (those the control plane has not moved elsewhere meanwhile).
#   list           Each node with its address and whether it is up or lost.
#
# The control plane (node 0's API server, etcd, controller-manager, scheduler) and kube-proxy are
# not part of any node here; losing node 0 takes its kubelet, containerd and pods (which include
# CoreDNS and the operators: up.sh puts them there), not the API.
#
# usage: hack/cluster/node.sh lose|restore NODE     hack/cluster/node.sh list
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || die "needs root"
[ -f "$STATE/nodes.count" ] || die "the local cluster is not up (no $STATE/nodes.count)"
NODES=$(cat "$STATE/nodes.count")
KUBECTL=${KUBECTL:-$("$ROOT/hack/k8s-bins.sh" kubectl)/kubectl}
export KUBECONFIG=$KUBECONFIG_FILE
mkdir -p "$STATE/lost"

now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }

# node_pids I: every process in node i's cgroup tree (daemons, shims, containers).
node_pids() {
  local h
  for h in $(node_hierarchies); do
    case $h in */freezer | */pids | /sys/fs/cgroup)
      if [ -d "$h/$(node_cgroup "$1")" ]; then find "$h/$(node_cgroup "$1")" -name cgroup.procs -exec cat {} + 2>/dev/null || true; fi ;;
    esac
  done | sort -un
}

# freeze I 1|0: freeze or thaw node i's whole cgroup tree, and wait until it is so.
freeze() {
  local i=$1 on=$2 cg
  if [ -z "$(cgroup_hierarchies)" ]; then
    cg="/sys/fs/cgroup/$(node_cgroup "$i")"
    echo "$on" > "$cg/cgroup.freeze"
    for _ in $(seq 200); do grep -q "^frozen $on$" "$cg/cgroup.events" && return 0; sleep 0.05; done
  else
    cg="$(grep -m1 ' cgroup .*freezer' /proc/mounts | cut -d' ' -f2)/$(node_cgroup "$i")"
    [ -f "$cg/freezer.state" ] || die "no freezer cgroup $cg"
    local want=THAWED; [ "$on" = 1 ] && want=FROZEN
    echo "$want" > "$cg/freezer.state"
    for _ in $(seq 200); do [ "$(cat "$cg/freezer.state")" = "$want" ] && return 0; sleep 0.05; done
  fi
  die "node $(node_name "$i"): its cgroup did not become $([ "$on" = 1 ] && echo frozen || echo thawed) within 10s"
}

lose() {
  local name=$1 i at links pids n
  i=$(node_index "$name") || die "no node $name (nodes: $(for j in $(seq 0 $((NODES - 1))); do printf '%s ' "$(node_name "$j")"; done))"
  [ -f "$STATE/lost/$name" ] && die "$name is already lost (at $(cat "$STATE/lost/$name")); restore it first"
  pid_alive "kubelet-$name" || pid_alive "containerd-$name" || die "$name is not running"
  freeze "$i" 1
  at=$(now)
  # Its pods' links go while nothing on the node can send: no FIN, no RST reaches a peer.
  links=$(ip -o link show master "$(node_bridge "$i")" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1)
  for l in $links; do ip link del "$l" 2>/dev/null || true; done
  pids=$(node_pids "$i")
  n=$(wc -w <<<"$pids")
  [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
  if [ -z "$(cgroup_hierarchies)" ] && [ -f "/sys/fs/cgroup/$(node_cgroup "$i")/cgroup.kill" ]; then
    echo 1 > "/sys/fs/cgroup/$(node_cgroup "$i")/cgroup.kill"
  fi
  freeze "$i" 0 # SIGKILL is delivered as the tasks thaw
  for _ in $(seq 200); do [ -z "$(node_pids "$i")" ] && break; sleep 0.05; done
  [ -z "$(node_pids "$i")" ] || die "$name: processes survived: $(node_pids "$i" | tr '\n' ' ')"
  echo "$at" > "$STATE/lost/$name"
  log "lost $name at $at: $n processes killed at once (kubelet, containerd, shims, containers), $(wc -w <<<"$links") pod links cut"
  echo "$at"
}

restore() {
  local name=$1 i start
  i=$(node_index "$name") || die "no node $name"
  [ -f "$STATE/lost/$name" ] || die "$name is not lost"
  [ -z "$(node_pids "$i")" ] || die "$name still has processes: $(node_pids "$i" | tr '\n' ' ')"
  start=$(date +%s%3N)
  launch_node "$i" containerd
  for _ in $(seq 60); do ctr_node "$i" version >/dev/null 2>&1 && break; sleep 0.5; done
  ctr_node "$i" version >/dev/null 2>&1 || die "$name: containerd did not come back; see $STATE/logs/containerd-$name.log"
  launch_node "$i" kubelet
  rm -f "$STATE/lost/$name"
  "$KUBECTL" wait --for=condition=Ready "node/$name" --timeout=180s >/dev/null ||
    die "$name: not Ready within 180s of its restart; see $STATE/logs/kubelet-$name.log"
  local took=$(($(date +%s%3N) - start))
  log "restored $name: Ready $((took / 1000)).$((took % 1000 / 100))s after its containerd started again"
  now
}

list() {
  local i name state
  for i in $(seq 0 $((NODES - 1))); do
    name=$(node_name "$i") state=up
    [ -f "$STATE/lost/$name" ] && state="lost at $(cat "$STATE/lost/$name")"
    pid_alive "kubelet-$name" || [ -f "$STATE/lost/$name" ] || state="stopped"
    printf '%s\t%s\t%s\n' "$name" "$(node_ip "$i")" "$state"
  done
}

case "${1:-}" in
  lose) lose "${2:?usage: node.sh lose NODE}" ;;
  restore) restore "${2:?usage: node.sh restore NODE}" ;;
  list) list ;;
  *) die "usage: node.sh lose|restore NODE | node.sh list" ;;
esac
