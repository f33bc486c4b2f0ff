#!/usr/bin/env bash
# Prints the path of a helm binary: $HELM when set, else Helm built from its Go module (no release
# download) and cached by version under ~/.cache/tpcc-operator (TPCC_CACHE). The version is
# hack/upstream/go.mod's, built in that module's graph (its dependencies at the project's versions:
# hack/upstream/sync.sh); HELM_VERSION names another, built alone with go install.
#
# usage: hack/cluster/helm.sh
set -euo pipefail
upstream="$(cd "$(dirname "$0")/.." && pwd)/upstream"
pinned=$("$upstream/build.sh" version helm.sh/helm/v4)
HELM_VERSION=${HELM_VERSION:-$pinned}
CACHE=${TPCC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tpcc-operator}
if [ -n "${HELM:-}" ]; then
  [ -x "$HELM" ] || { echo "helm: HELM=$HELM is not an executable" >&2; exit 1; }
  echo "$HELM"; exit 0
fi
dest="$CACHE/helm-$HELM_VERSION"
# One build at a time (hack/prebuild.sh may be building it beside the chart's tests): the second
# waits for the first and finds it built.
mkdir -p "$CACHE"
exec 9>"$CACHE/helm-$HELM_VERSION.lock"
flock 9
if [ ! -x "$dest/helm" ]; then
  start=$(date +%s)
  major=${HELM_VERSION%%.*}
  stamp="-X helm.sh/helm/$major/internal/version.version=$HELM_VERSION"
  if [ "$HELM_VERSION" = "$pinned" ]; then
    mkdir -p "$dest"
    "$upstream/build.sh" build "helm.sh/helm/$major/cmd/helm" "$dest/helm.tmp" "$stamp" >&2
    mv "$dest/helm.tmp" "$dest/helm"
  else
    CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOBIN="$dest" go install -trimpath \
      -ldflags "-s -w $stamp" "helm.sh/helm/$major/cmd/helm@$HELM_VERSION" >&2
  fi
  echo "helm: $HELM_VERSION built in $(($(date +%s) - start))s" >&2
fi
echo "$dest/helm"
