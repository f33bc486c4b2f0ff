#!/usr/bin/env bash
# Builds Kubernetes binaries (kube-apiserver, kubelet, kubectl, ...) and etcd from source through
# the Go module proxy alone, caches them by version outside the repository, and prints the folder.
#
# usage: hack/k8s-bins.sh NAME...      e.g. hack/k8s-bins.sh kube-apiserver etcd
#        hack/k8s-bins.sh --dir         print the folder only (nothing built)
# env:   K8S_VERSION (1.34.4), ETCD_VERSION (3.6.4), TPCC_CACHE (~/.cache/tpcc-operator)
#
# k8s.io/kubernetes cannot be `go install`ed: its go.mod replaces the staging modules (k8s.io/api,
# k8s.io/client-go, ...) with local paths. A throwaway module requires it and points each staging
# module at its published k8s.io/<name> v0.<minor>.<patch> twin instead.
#
# etcd is built in that same module graph: ETCD_VERSION defaults to the etcd server Kubernetes' own
# go.mod requires (3.6.4 for 1.34.4, the etcd its release ships with), so the two share every
# module they both use (gRPC, OpenTelemetry, protobuf, bbolt, etcd's client…) at one version and
# compile it once. Built in a graph of its own (until 2026-11-28, etcd 3.6.6), those compiled twice.
set -euo pipefail

K8S_VERSION=${K8S_VERSION:-1.34.4}
ETCD_VERSION=${ETCD_VERSION:-3.6.4}
CACHE=${TPCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tpcc-operator}
OUT="$CACHE/k8s-$K8S_VERSION-etcd-$ETCD_VERSION"
if [ "${1:-}" = --dir ]; then
  echo "$OUT"
  exit 0
fi
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

missing=()
for n in "${NAMES[@]}"; do
  have "$n" || missing+=("$n")
done

if [ ${#missing[@]} -gt 0 ]; then
  # Kubernetes' binaries are built as they always were here, whatever the caller exports for its
  # own packages (the Makefile's CGO_ENABLED=0, GOFLAGS=-trimpath): cgo where a C compiler is
  # installed.
  export GOFLAGS=-buildvcs=false
  unset CGO_ENABLED
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cd "$work"
  log "resolving k8s.io/kubernetes v$K8S_VERSION and etcd v$ETCD_VERSION"
  gomod=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  staging_version="v0.${K8S_VERSION#1.}"
  {
    printf 'module k8sbins\n\ngo 1.24\n\nrequire (\n\tk8s.io/kubernetes v%s\n\tgo.etcd.io/etcd/server/v3 v%s\n)\n\nreplace (\n' "$K8S_VERSION" "$ETCD_VERSION"
    grep -E '^\s+k8s.io/[a-z0-9-]+ => ./staging' "$gomod" | awk -v v="$staging_version" '{print "\t" $1 " => " $1 " " v}'
    printf ')\n'
  } > go.mod
  pkgs=()
  for n in "${missing[@]}"; do
    if [ "$n" = etcd ]; then pkgs+=(go.etcd.io/etcd/server/v3); else pkgs+=("k8s.io/kubernetes/cmd/$n"); fi
  done
  # kube-apiserver always: with nothing of Kubernetes imported, go mod tidy would drop it from the
  # graph, and etcd built alone would select other versions of what the two share.
  {
    printf '//go:build tools\n\npackage tools\n\n'
    printf '%s\n' k8s.io/kubernetes/cmd/kube-apiserver "${pkgs[@]}" | sort -u | while read -r p; do printf 'import _ "%s"\n' "$p"; done
  } > tools.go
  go mod tidy >&2
  # The graph has one version of each module: an ETCD_VERSION newer than the etcd Kubernetes
  # requires moves Kubernetes' own etcd client with it (said); an older one cannot be selected at
  # all, and the etcd built would not be the one asked for (refused, naming the variable).
  k8s_etcd=$(awk '$1 == "go.etcd.io/etcd/server/v3" {print $2; exit}' "$gomod")
  selected=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
  if [ "$selected" != "v$ETCD_VERSION" ]; then
    log "ETCD_VERSION=$ETCD_VERSION is older than the etcd Kubernetes v$K8S_VERSION requires ($k8s_etcd): one module graph builds both; give $k8s_etcd or newer, or leave ETCD_VERSION unset"
    exit 2
  fi
  [ "$k8s_etcd" = "v$ETCD_VERSION" ] || log "note: Kubernetes v$K8S_VERSION requires etcd $k8s_etcd; ETCD_VERSION=$ETCD_VERSION moves its etcd client to that version"
  minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor"
  # One go build for all of them: one action graph, each package compiled once, the links side
  # by side. A main package's binary is named after its path's last element (etcd's "server").
  start=$(date +%s)
  mkdir -p "$work/out"
  go build -ldflags "$ldflags" -o "$work/out/" "${pkgs[@]}" >&2
  for n in "${missing[@]}"; do
    built=$n
    [ "$n" = etcd ] && built=server
    mv "$work/out/$built" "$OUT/$n.tmp"
    mv "$OUT/$n.tmp" "$OUT/$n"
  done
  log "${missing[*]} (Kubernetes v$K8S_VERSION, etcd v$ETCD_VERSION) built in $(($(date +%s) - start))s"
fi

echo "$OUT"
