#!/usr/bin/env bash
# Prints local-path-provisioner's own deploy manifest (taken from its Go module by hack/images.sh),
# patched for this offline cluster: local images, volumes under VOLUME_DIR — with nodes named, each
# node's under VOLUME_DIR/NODE, its own "disk" (the provisioner binds every volume to the node it
# was created on) — and the StorageClass marked as the cluster default. Fails when an expected
# upstream line is gone, naming it.
#
# usage: hack/cluster/local-path.sh IMAGES_DIR VOLUME_DIR [NODE...] | kubectl apply -f -
set -euo pipefail
images=${1:?usage: local-path.sh IMAGES_DIR VOLUME_DIR [NODE...]}
volumes=${2:?usage: local-path.sh IMAGES_DIR VOLUME_DIR [NODE...]}
shift 2
paths="\"paths\":[\"$volumes\"]"
if [ $# -gt 0 ]; then # a node not listed (none here) would get VOLUME_DIR/unlisted
  paths="\"paths\":[\"$volumes/unlisted\"]"
  for node in "$@"; do paths+="},{\"node\":\"$node\",\"paths\":[\"$volumes/$node\"]"; done
fi
source "$images/images.env"
upstream="$images/local-path-storage.upstream.yaml"
[ -f "$upstream" ] || { echo "local-path: $upstream is missing: run hack/images.sh cluster" >&2; exit 1; }
expect() { # PATTERN: the upstream manifest must still contain it
  grep -qE "$1" "$upstream" || { echo "local-path: upstream manifest no longer matches '$1'" >&2; exit 1; }
}
expect '^\s+image: rancher/local-path-provisioner:'
expect '^\s+image: busybox$'
expect '"paths":\["/opt/local-path-provisioner"\]'
expect '^  name: local-path$'
sed -E \
  -e "s#^(\s+)image: rancher/local-path-provisioner:.*#\1image: $LOCAL_PATH_IMAGE#" \
  -e "s#^(\s+)image: busybox\$#\1image: $BUSYBOX_IMAGE#" \
  -e "s#\"paths\":\[\"/opt/local-path-provisioner\"\]#$paths#" \
  -e '/^kind: StorageClass$/,/^  name: local-path$/ s#^(  name: local-path)$#\1\n  annotations:\n    storageclass.kubernetes.io/is-default-class: "true"#' \
  "$upstream"
