#!/usr/bin/env bash
# Prints a KUBEBUILDER_ASSETS folder holding kube-apiserver and etcd for envtest.
#
#   KUBEBUILDER_ASSETS already set and complete  -> used as it is
#   ENVTEST_SOURCE=download                      -> setup-envtest downloads release binaries (online users)
#   otherwise (default)                          -> built from source through the Go module proxy and cached
#                                                   by version outside the repository (hack/k8s-bins.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ -x "$KUBEBUILDER_ASSETS/kube-apiserver" ] && [ -x "$KUBEBUILDER_ASSETS/etcd" ]; then
  echo "$KUBEBUILDER_ASSETS"
  exit 0
fi

case "${ENVTEST_SOURCE:-build}" in
  download)
    version=${ENVTEST_K8S_VERSION:-1.34.x}
    go run sigs.k8s.io/controller-runtime/tools/setup-envtest@release-0.22 use "$version" -p path
    echo
    ;;
  build)
    "$here/k8s-bins.sh" kube-apiserver etcd
    ;;
  *)
    echo "envtest-assets: ENVTEST_SOURCE must be 'build' or 'download', got '$ENVTEST_SOURCE'" >&2
    exit 2
    ;;
esac
