#!/usr/bin/env bash
# Stops the local cluster and puts the machine back as up.sh found it: every process up.sh started
# (by its PID), every container of every node (then anything left in the nodes' cgroups), the
# mounts under the cluster's folders, the pod network namespaces, the bridges, the KUBE-/CNI-
# iptables chains, the nodes' cgroups, the sysctls, and the cluster's state (KEEP_STATE=1 keeps
# $STATE's logs for inspection; images and builds stay cached either way).
#
# usage: hack/cluster/down.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || die "needs root"
[ -d "$STATE" ] || { log "not up (no $STATE)"; exit 0; }
[ -f "$STATE/nodes.count" ] && NODES=$(cat "$STATE/nodes.count")

stop() { # NAME: TERM, then KILL after 10 s
  local f="$STATE/pids/$1" pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  fi
  rm -f "$f"
}

# What hack/cluster/snapshots.sh added: the CSI driver's plugins and the snapshot sidecars.
for f in "$STATE"/pids/csi-* "$STATE"/pids/snapshot-controller; do [ -f "$f" ] && stop "$(basename "$f")"; done
rm -rf /run/tpcc-csi
stop kube-proxy
for i in $(seq 0 $((NODES - 1))); do stop "kubelet-$(node_name "$i")"; done
stop kube-scheduler
stop kube-controller-manager
# Containers die while their containerd still knows them, so their shims exit and release their mounts.
for i in $(seq 0 $((NODES - 1))); do
  socket=$(node_socket "$i")
  [ -S "$socket" ] || continue
  c() { ctr --address "$socket" -n k8s.io "$@" 2>/dev/null; }
  for task in $(c tasks ls -q); do c tasks kill -s SIGKILL "$task" >/dev/null; done
  for _ in $(seq 20); do [ -z "$(c tasks ls -q | head -1)" ] && break; sleep 0.5; c tasks ls -q | xargs -r -n1 ctr --address "$socket" -n k8s.io tasks delete -f >/dev/null 2>&1; done
  for task in $(c tasks ls -q); do c tasks delete -f "$task" >/dev/null; done
  for container in $(c containers ls -q); do c containers delete "$container" >/dev/null; done
done
for i in $(seq 0 $((NODES - 1))); do stop "containerd-$(node_name "$i")"; done
# Whatever is still in a node's cgroups (a node lost by node.sh and never restored, a shim that
# outlived its containerd): thawed and killed.
for h in $(cgroup_hierarchies) /sys/fs/cgroup; do
  for i in $(seq 0 $((NODES - 1))); do
    cg="$h/$(node_cgroup "$i")"
    [ -d "$cg" ] || continue
    find "$cg" -name freezer.state -exec sh -c 'echo THAWED > "$1"' _ {} \; 2>/dev/null
    [ -f "$cg/cgroup.freeze" ] && echo 0 > "$cg/cgroup.freeze"
    find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u | xargs -r kill -9 2>/dev/null
  done
done
stop kube-apiserver
stop etcd

# Mounts: secrets and projected volumes, sandbox shm, overlay roots, pod network namespaces.
awk '{print $2}' /proc/mounts | grep -E "^($STATE|$RUN_DIR|/run/containerd|/run/netns|/var/run/netns)" | sort -r |
  while read -r mount; do umount "$mount" 2>/dev/null || umount -l "$mount"; done
for netns in /run/netns/cni-*; do [ -e "$netns" ] && rm -f "$netns"; done

for i in $(seq 0 $((NODES - 1))); do
  bridge=$(node_bridge "$i")
  ip link show "$bridge" >/dev/null 2>&1 && ip link del "$bridge"
done

# iptables: only the chains and rules kube-proxy, kubelet and the CNI plugins add.
for cmd in iptables ip6tables; do
  command -v "$cmd-save" >/dev/null || continue
  for table in nat filter mangle; do
    rules=$("$cmd-save" -t "$table" 2>/dev/null) || continue
    grep -qE 'KUBE-|CNI-' <<<"$rules" || continue
    grep -vE 'KUBE-|CNI-' <<<"$rules" | "$cmd-restore" -T "$table"
  done
done

if [ -f "$STATE/machine.before" ]; then
  while read -r kind value; do
    case $kind in
      sysctl) sysctl -qw "$value" 2>/dev/null || log "could not restore $value" ;;
      absent) rm -rf "$value" ;;
      cgroup) [ -d "$value" ] && find "$value" -depth -type d -exec rmdir {} + 2>/dev/null ;;
      bridge) ip link show "$value" >/dev/null 2>&1 && ip link del "$value" ;;
    esac
  done < "$STATE/machine.before"
fi
rm -rf "$RUN_DIR"
if [ "${KEEP_STATE:-0}" = 1 ]; then
  rm -rf "$STATE"/{nodes,etcd,local-path,csi-volumes,pki,pids,machine.before,nodes.count} "$STATE"/*.kubeconfig
  log "down; logs kept in $STATE/logs"
else
  rm -rf "$STATE"
  log "down"
fi
