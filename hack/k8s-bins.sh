#!/usr/bin/env bash
# Builds Kubernetes binaries (kube-apiserver, kubelet, kubectl, ...) and etcd from source through
# the Go module proxy alone, caches them by version outside the repository, and prints the folder.
#
# usage: hack/k8s-bins.sh NAME...      e.g. hack/k8s-bins.sh kube-apiserver etcd
# env:   K8S_VERSION (1.34.4), ETCD_VERSION (3.6.6), TPCC_CACHE (~/.cache/tpcc-operator)
#
# k8s.io/kubernetes cannot be `go install`ed: its go.mod replaces the staging modules (k8s.io/api,
# k8s.io/client-go, ...) with local paths. A throwaway module requires it and points each staging
# module at its published k8s.io/<name> v0.<minor>.<patch> twin instead.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-1.34.4}
ETCD_VERSION=${ETCD_VERSION:-3.6.6}
CACHE=${TPCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tpcc-operator}
OUT="$CACHE/k8s-$K8S_VERSION-etcd-$ETCD_VERSION"
NAMES=("$@")
[ ${#NAMES[@]} -gt 0 ] || NAMES=(kube-apiserver etcd)

log() { echo "k8s-bins: $*" >&2; }

have() { # NAME: is a binary of the wanted version cached?
  local bin="$OUT/$1" version
  [ -x "$bin" ] || return 1
  # Capture first: with pipefail, `grep -q` closing the pipe early would fail the check.
  case "$1" in
    etcd) version=$("$bin" --version 2>/dev/null) || return 1; [[ "$version" == *"etcd Version: $ETCD_VERSION"* ]] ;;
    kubectl) version=$("$bin" version --client 2>/dev/null) || return 1; [[ "$version" == *"v$K8S_VERSION"* ]] ;;
    *) version=$("$bin" --version 2>/dev/null) || return 1; [[ "$version" == *"v$K8S_VERSION"* ]] ;;
  esac
}

mkdir -p "$OUT"
# One build at a time per version: .ci/run's envtest step and hack/prebuild.sh may ask at once; the
# second waits, then builds only what the first left missing.
exec 9>"$OUT/.lock"
flock 9

missing_k8s=()
need_etcd=false
for n in "${NAMES[@]}"; do
  have "$n" && continue
  if [ "$n" = etcd ]; then need_etcd=true; else missing_k8s+=("$n"); fi
done

# Kubernetes' binaries are built as they always were here, whatever the caller exports for its own
# packages (the Makefile's CGO_ENABLED=0, GOFLAGS=-trimpath): cgo where a C compiler is installed.
export GOFLAGS=-buildvcs=false
unset CGO_ENABLED
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ ${#missing_k8s[@]} -gt 0 ]; then
  mkdir -p "$work/k8s"
  cd "$work/k8s"
  log "resolving k8s.io/kubernetes v$K8S_VERSION"
  gomod=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  staging_version="v0.${K8S_VERSION#1.}"
  {
    printf 'module k8sbins\n\ngo 1.24\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' "$K8S_VERSION"
    grep -E '^\s+k8s.io/[a-z0-9-]+ => ./staging' "$gomod" | awk -v v="$staging_version" '{print "\t" $1 " => " $1 " " v}'
    printf ')\n'
  } > go.mod
  {
    printf '//go:build tools\n\npackage tools\n\n'
    for n in "${missing_k8s[@]}"; do printf 'import _ "k8s.io/kubernetes/cmd/%s"\n' "$n"; done
  } > tools.go
  go mod tidy >&2
  minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
  for n in "${missing_k8s[@]}"; do
    start=$(date +%s)
    go build -ldflags "$ldflags" -o "$OUT/$n.tmp" "k8s.io/kubernetes/cmd/$n" >&2
    mv "$OUT/$n.tmp" "$OUT/$n"
    log "$n v$K8S_VERSION built in $(($(date +%s) - start))s"
  done
fi

if $need_etcd; then
  mkdir -p "$work/etcd"
  cd "$work/etcd"
  printf 'module etcdbin\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 v%s\n' "$ETCD_VERSION" > go.mod
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
  go mod tidy >&2
  start=$(date +%s)
  go build -ldflags "-s -w" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
  mv "$OUT/etcd.tmp" "$OUT/etcd"
  log "etcd v$ETCD_VERSION built in $(($(date +%s) - start))s"
fi

echo "$OUT"
