#!/usr/bin/env bash
# The third-party programs built from this module's graph (go.mod, kept by sync.sh): Helm,
# controller-gen, metrics-server, local-path-provisioner and CoreDNS (./coredns). Built as the
# project's packages are (static, -trimpath), their shared dependencies at the root module's
# versions, so their compiled packages are the project's.
#
# usage: hack/upstream/build.sh version MODULE            print MODULE's version in go.mod
#        hack/upstream/build.sh build PACKAGE OUT [LDFLAGS]  build PACKAGE (a main) into OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  version)
    module=${2:?module path}
    v=$(awk -v m="$module" '/^require \(/{f=1; next} f && /^\)/{f=0} (f && $1 == m) || ($1 == "require" && $2 == m) {print (f ? $2 : $3); exit}' "$here/go.mod")
    [ -n "$v" ] || { echo "upstream: $module is not required by $here/go.mod" >&2; exit 1; }
    echo "$v"
    ;;
  build)
    pkg=${2:?package} out=${3:?output path}
    cd "$here"
    CGO_ENABLED=0 GOWORK=off GOFLAGS="-trimpath -buildvcs=false -mod=readonly" go build -ldflags "-s -w ${4:-}" -o "$out" "$pkg"
    ;;
  *)
    echo "usage: hack/upstream/build.sh version MODULE | build PACKAGE OUT [LDFLAGS]" >&2
    exit 2
    ;;
esac
