#!/usr/bin/env bash
# Prints local-path-provisioner's own deploy manifest (taken from its Go module by hack/images.sh),
# patched for this offline cluster: local images, volumes under VOLUME_DIR, and the StorageClass
# marked as the cluster default. Fails when an expected upstream line is gone, naming it.
#
# usage: hack/cluster/local-path.sh IMAGES_DIR VOLUME_DIR | kubectl apply -f -
set -euo pipefail
images=${1:?usage: local-path.sh IMAGES_DIR VOLUME_DIR}
volumes=${2:?usage: local-path.sh IMAGES_DIR VOLUME_DIR}
source "$images/images.env"
upstream="$images/local-path-storage.upstream.yaml"
[ -f "$upstream" ] || { echo "local-path: $upstream is missing: run hack/images.sh cluster" >&2; exit 1; }
expect() { # PATTERN: the upstream manifest must still contain it
  grep -qE "$1" "$upstream" || { echo "local-path: upstream manifest no longer matches '$1'" >&2; exit 1; }
}
expect '^\s+image: rancher/local-path-provisioner:'
expect '^\s+image: busybox$'
expect '"/opt/local-path-provisioner"'
expect '^  name: local-path$'
sed -E \
  -e "s#^(\s+)image: rancher/local-path-provisioner:.*#\1image: $LOCAL_PATH_IMAGE#" \
  -e "s#^(\s+)image: busybox\$#\1image: $BUSYBOX_IMAGE#" \
  -e "s#\"/opt/local-path-provisioner\"#\"$volumes\"#" \
  -e '/^kind: StorageClass$/,/^  name: local-path$/ s#^(  name: local-path)$#\1\n  annotations:\n    storageclass.kubernetes.io/is-default-class: "true"#' \
  "$upstream"
