#!/usr/bin/env bash
# Stops the local cluster and puts the machine back as up.sh found it: every process up.sh started
# (by its PID) and every container, the mounts under the cluster's folders, the pod network
# namespaces, the bridge, the KUBE-/CNI- iptables chains, the sysctls, and the cluster's state
# (KEEP_STATE=1 keeps $STATE's logs for inspection; images and builds stay cached either way).
#
# usage: hack/cluster/down.sh
set -uo pipefail
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || die "needs root"
[ -d "$STATE" ] || { log "not up (no $STATE)"; exit 0; }

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

stop kube-proxy
stop kubelet
stop kube-scheduler
stop kube-controller-manager
# Containers die while containerd still knows them, so their shims exit and release their mounts.
if [ -S "$CONTAINERD_SOCKET" ]; then
  c() { ctr --address "$CONTAINERD_SOCKET" -n k8s.io "$@" 2>/dev/null; }
  for task in $(c tasks ls -q); do c tasks kill -s SIGKILL "$task" >/dev/null; done
  for _ in $(seq 20); do [ -z "$(c tasks ls -q | head -1)" ] && break; sleep 0.5; c tasks ls -q | xargs -r -n1 ctr --address "$CONTAINERD_SOCKET" -n k8s.io tasks delete -f >/dev/null 2>&1; done
  for task in $(c tasks ls -q); do c tasks delete -f "$task" >/dev/null; done
  for container in $(c containers ls -q); do c containers delete "$container" >/dev/null; done
fi
stop containerd
stop kube-apiserver
stop etcd

# Mounts: secrets and projected volumes, sandbox shm, overlay roots, pod network namespaces.
awk '{print $2}' /proc/mounts | grep -E "^($STATE|$RUN_DIR|/run/containerd|/run/netns|/var/run/netns)" | sort -r |
  while read -r mount; do umount "$mount" 2>/dev/null || umount -l "$mount"; done
for netns in /run/netns/cni-*; do [ -e "$netns" ] && rm -f "$netns"; done

ip link show "$BRIDGE" >/dev/null 2>&1 && ip link del "$BRIDGE"

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
    esac
  done < "$STATE/machine.before"
fi
rm -rf "$RUN_DIR"
if [ "${KEEP_STATE:-0}" = 1 ]; then
  rm -rf "$STATE"/{containerd,kubelet,etcd,local-path,cni,pki,pids,machine.before} "$STATE"/*.kubeconfig
  log "down; logs kept in $STATE/logs"
else
  rm -rf "$STATE"
  log "down"
fi
