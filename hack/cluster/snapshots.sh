#!/usr/bin/env bash
# Adds VolumeSnapshots to the running local cluster, for what restores a volume from a snapshot
# (issue 23: each suite repeat restored from one snapshot of the loaded database). Not part of every
# bring-up — only what uses snapshots pays for it:
#
#   - csi-local (hack/csi-local): a CSI driver whose volumes are directories of this machine
#     (STATE/csi-volumes/NODE/VOLUME), one node plugin per node registered with its kubelet, and its
#     controller (CreateSnapshot and DeleteSnapshot as directory copies, a provisioner that
#     provisions a claim whose dataSource is a VolumeSnapshot as a copy of it);
#   - the upstream snapshot-controller and csi-snapshotter (kubernetes-csi/external-snapshotter
#     SNAPSHOTTER_VERSION), built from the Go module proxy, and the snapshot CRDs of the same
#     version;
#   - StorageClass local-snap and VolumeSnapshotClass local-snap on that driver.
#
# All of them are processes of this machine talking to the API server with the admin kubeconfig,
# as the control plane's are; down.sh stops them. Builds are cached by version (by source hash for
# csi-local) under CACHE.
#
# usage: hack/cluster/snapshots.sh       (after hack/cluster/up.sh; prints the StorageClass name)
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ "$(id -u)" = 0 ] || die "needs root"
[ -f "$KUBECONFIG_FILE" ] && [ -f "$STATE/nodes.count" ] || die "the local cluster is not up (hack/cluster/up.sh)"
NODES=$(cat "$STATE/nodes.count")
SNAPSHOTTER_VERSION=${SNAPSHOTTER_VERSION:-8.7.0}
SOCKETS=/run/tpcc-csi                    # unix socket paths are limited to 108 bytes
VOLUMES="$STATE/csi-volumes"
KUBECTL="$(k8s_bins)/kubectl"
k() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
export GOFLAGS=-buildvcs=false

# --- the upstream sidecars and CRDs, cached by version
SNAP_BIN="$CACHE/external-snapshotter-$SNAPSHOTTER_VERSION"
if ! [ -x "$SNAP_BIN/snapshot-controller" ] || ! [ -x "$SNAP_BIN/csi-snapshotter" ] || ! ls "$SNAP_BIN"/crd/*.yaml >/dev/null 2>&1; then
  log "building snapshot-controller and csi-snapshotter v$SNAPSHOTTER_VERSION from the Go module proxy (once)"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$SNAP_BIN/crd"
  # The module's own go.mod replaces its client module with a local path: point it at the
  # published client of the same version instead.
  cat > "$work/go.mod" <<EOF
module snapbins

go 1.26

require github.com/kubernetes-csi/external-snapshotter/v8 v$SNAPSHOTTER_VERSION

replace github.com/kubernetes-csi/external-snapshotter/client/v8 => github.com/kubernetes-csi/external-snapshotter/client/v8 v$SNAPSHOTTER_VERSION
EOF
  cat > "$work/tools.go" <<'EOF'
//go:build tools

package tools

import (
	_ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/csi-snapshotter"
	_ "github.com/kubernetes-csi/external-snapshotter/v8/cmd/snapshot-controller"
)
EOF
  (
    cd "$work"
    go mod tidy >&2
    for cmd in snapshot-controller csi-snapshotter; do
      go build -ldflags "-s -w" -o "$SNAP_BIN/$cmd.tmp" "github.com/kubernetes-csi/external-snapshotter/v8/cmd/$cmd" >&2
      mv "$SNAP_BIN/$cmd.tmp" "$SNAP_BIN/$cmd"
    done
    client=$(go list -m -f '{{.Dir}}' github.com/kubernetes-csi/external-snapshotter/client/v8)
    cp "$client"/config/crd/snapshot.storage.k8s.io_*.yaml "$client"/config/crd/groupsnapshot.storage.k8s.io_*.yaml "$SNAP_BIN/crd/"
  )
fi

# --- csi-local, cached by its sources' hash
hash=$(cat "$ROOT"/hack/csi-local/{main.go,go.mod,go.sum} | sha256sum | cut -c1-16)
CSI_LOCAL="$CACHE/csi-local-$hash"
if ! [ -x "$CSI_LOCAL" ]; then
  log "building csi-local ($hash)"
  (cd "$ROOT/hack/csi-local" && go build -ldflags "-s -w" -o "$CSI_LOCAL.tmp" . >&2)
  mv "$CSI_LOCAL.tmp" "$CSI_LOCAL"
fi

# --- the CRDs first: the sidecars watch them from the start
for f in "$SNAP_BIN"/crd/*.yaml; do k apply --server-side --force-conflicts -f "$f" >/dev/null; done
k wait --for=condition=Established --timeout=60s crd/volumesnapshots.snapshot.storage.k8s.io \
  crd/volumesnapshotcontents.snapshot.storage.k8s.io crd/volumesnapshotclasses.snapshot.storage.k8s.io >/dev/null

launch() { # NAME COMMAND...: start in the background unless running, remember its PID
  local name=$1; shift
  if [ -f "$STATE/pids/$name" ] && kill -0 "$(cat "$STATE/pids/$name")" 2>/dev/null; then return 0; fi
  nohup "$@" > "$STATE/logs/$name.log" 2>&1 &
  echo $! > "$STATE/pids/$name"
}
mkdir -p "$SOCKETS" "$VOLUMES" "$STATE/logs" "$STATE/pids"
for i in $(seq 0 $((NODES - 1))); do
  n=$(node_name "$i")
  launch "csi-local-$n" "$CSI_LOCAL" --mode node --node "$n" --kubelet-root "$STATE/nodes/$n/kubelet" --volumes "$VOLUMES"
done
launch csi-local-controller "$CSI_LOCAL" --mode controller --endpoint "$SOCKETS/ctrl.sock" --volumes "$VOLUMES" --kubeconfig "$KUBECONFIG_FILE"
launch snapshot-controller "$SNAP_BIN/snapshot-controller" --kubeconfig "$KUBECONFIG_FILE" --leader-election=false
for _ in $(seq 40); do [ -S "$SOCKETS/ctrl.sock" ] && break; sleep 0.5; done
launch csi-snapshotter "$SNAP_BIN/csi-snapshotter" --kubeconfig "$KUBECONFIG_FILE" --csi-address "$SOCKETS/ctrl.sock" --leader-election=false

k apply -f "$ROOT/hack/csi-local/manifests/base.yaml" >/dev/null
# Every kubelet has registered the driver (its CSINode lists it).
for i in $(seq 0 $((NODES - 1))); do
  n=$(node_name "$i") ok=false
  for _ in $(seq 60); do
    if k get csinode "$n" -o jsonpath='{.spec.drivers[*].name}' 2>/dev/null | grep -qw local.csi.tpcc-operator.io; then ok=true; break; fi
    sleep 0.5
  done
  $ok || die "the kubelet of $n did not register csi-local within 30s; logs in $STATE/logs/csi-local-$n.log"
done
# CloudNativePG looks for the VolumeSnapshot CRD once, when it starts (its webhook refuses
# volume-snapshot Backups otherwise): restart it if it started before them.
if k -n cnpg-system get deploy/cnpg-controller-manager >/dev/null 2>&1; then
  started=$(k -n cnpg-system get pods -l app.kubernetes.io/name=cloudnative-pg -o jsonpath='{.items[0].status.startTime}' 2>/dev/null || true)
  established=$(k get crd volumesnapshots.snapshot.storage.k8s.io -o jsonpath='{.metadata.creationTimestamp}')
  if [ -z "$started" ] || [[ "$started" < "$established" ]]; then
    log "restarting CloudNativePG, which started before the VolumeSnapshot CRD"
    k -n cnpg-system rollout restart deploy/cnpg-controller-manager >/dev/null
    k -n cnpg-system rollout status deploy/cnpg-controller-manager --timeout=300s >/dev/null
  fi
fi
log "VolumeSnapshots ready: StorageClass and VolumeSnapshotClass local-snap (csi-local, external-snapshotter v$SNAPSHOTTER_VERSION)"
echo local-snap
