#!/usr/bin/env bash
# Fails when generated code or manifests are stale, code is not gofmt-ed, vet complains, an engine
# is named in shared code or an import points up (hack/housecheck), or the manager links a
# database driver or k6 (it must stay free of them: DESIGN §4).
# usage: hack/verify.sh CONTROLLER_GEN
set -euo pipefail
cd "$(dirname "$0")/.."
controller_gen=${1:?path to controller-gen}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/crd" "$scratch/rbac"
cp api/v1alpha1/zz_generated.deepcopy.go "$scratch/deepcopy.before"
"$controller_gen" object paths=./api/... output:dir="$scratch/object"
"$controller_gen" crd:allowDangerousTypes=true paths=./api/... output:crd:artifacts:config="$scratch/crd"
go run ./hack/crdtrim "$scratch"/crd/*.yaml
"$controller_gen" rbac:roleName=manager-role paths=./controllers/... paths=./internal/... output:rbac:artifacts:config="$scratch/rbac"
"$controller_gen" rbac:roleName=fault-injector paths=./cmd/fault-injector/... output:rbac:artifacts:config="$scratch/injector-rbac"

stale=0
diff -u api/v1alpha1/zz_generated.deepcopy.go "$scratch/object/zz_generated.deepcopy.go" || stale=1
diff -ru config/crd/bases "$scratch/crd" || stale=1
diff -u config/rbac/role.yaml "$scratch/rbac/role.yaml" || stale=1
diff -u "$scratch/crd/bench.oltp.io_benchmarkruns.yaml" charts/tpcc-operator/files/bench.oltp.io_benchmarkruns.yaml || stale=1
diff -u "$scratch/crd/bench.oltp.io_benchmarksuites.yaml" charts/tpcc-operator/files/bench.oltp.io_benchmarksuites.yaml || stale=1
diff -u "$scratch/crd/bench.oltp.io_networkfaults.yaml" charts/tpcc-operator/files/bench.oltp.io_networkfaults.yaml || stale=1
diff -u config/fault-injector/role.yaml "$scratch/injector-rbac/role.yaml" || stale=1
if [ $stale -ne 0 ]; then
  echo "verify: generated files are stale; run 'make generate manifests' and commit the result" >&2
  exit 1
fi

go_files=$(git ls-files --cached --others --exclude-standard '*.go' | while read -r f; do [ -f "$f" ] && echo "$f"; done)
unformatted=$(gofmt -l $go_files)
if [ -n "$unformatted" ]; then
  echo "verify: not gofmt-ed:" >&2
  echo "$unformatted" >&2
  exit 1
fi

go vet ./...
go vet -tags e2e ./e2e/
# The house: no engine named in shared code, imports pointing down (hack/housecheck says which).
go run ./hack/housecheck
# The nested module of the CockroachDB grammar test (its own go.mod keeps the parser out of the root's).
if ! (cd internal/tpcc/crdbgrammar && go mod tidy -diff); then
  echo "verify: internal/tpcc/crdbgrammar/go.mod is stale against the root module: run (cd internal/tpcc/crdbgrammar && go mod tidy)" >&2
  exit 1
fi
(cd internal/tpcc/crdbgrammar && go vet ./...)
# hack/upstream builds its programs (Helm, controller-gen, the local cluster's) with what they share
# with the project at the root module's versions, so they reuse the packages compiled here: a
# module the two graphs select at different versions fails (hack/upstream/sync.sh says what to do).
hack/upstream/sync.sh check
linked=$(go list -deps ./cmd/manager ./cmd/tpcc | grep -E '^github.com/cockroachdb/' || true)
if [ -n "$linked" ]; then
  echo "verify: CockroachDB's parser is a test dependency only, but the binaries import:" >&2
  echo "$linked" >&2
  exit 1
fi

# Prometheus' own module (the promql parser of the dashboard test) is a test dependency only.
forbidden=$(go list -deps ./cmd/manager | grep -E '^(github.com/jackc/pgx|github.com/ydb-platform/ydb-go-sdk|go.k6.io/k6|github.com/prometheus/prometheus/)' || true)
if [ -n "$forbidden" ]; then
  echo "verify: the manager must not link database drivers, k6 or Prometheus' server module, but imports:" >&2
  echo "$forbidden" >&2
  exit 1
fi
# The browser driver of the report tests (chromedp) is a test dependency only (k6 itself links cdproto).
linked=$(go list -deps ./cmd/manager ./cmd/tpcc ./cmd/kubectl-tpcc | grep -E '^github.com/chromedp/chromedp' || true)
if [ -n "$linked" ]; then
  echo "verify: chromedp is a test dependency only, but the binaries import:" >&2
  echo "$linked" >&2
  exit 1
fi
if grep -nE "^\s*-\s*['\"]?\*['\"]?\s*$" config/rbac/*.yaml; then
  echo "verify: RBAC must not use wildcards" >&2
  exit 1
fi
echo "verify: ok"
