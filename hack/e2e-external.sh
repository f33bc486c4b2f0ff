#!/usr/bin/env bash
# `make e2e-external`: prove the CockroachDB and YDB paths on databases you already have.
#
#   TPCC_E2E_COCKROACH_URL  postgres://user:password@host:26257/defaultdb?sslmode=verify-full&sslrootcert=…
#   TPCC_E2E_YDB_ENDPOINT   grpc://host:2136/Root/testdb  or  grpcs://…
#
# For each engine whose variable is set, in this order:
#   1. internal/tpcc/drivers against the server directly (TestExternal*): load, check, a burst of every
#      transaction, check again (CockroachDB: in a fresh database it creates and drops);
#   2. the e2e suite (TestExternal* in e2e/, through hack/e2e.sh: the cluster of KUBECONFIG, or a
#      local one): a BenchmarkRun with `engine: CockroachDB` / `YDB` and `external` (a Secret with
#      key `uri`) loads 2 warehouses, checks, measures one short step and records the result;
#      the test then checks the database again.
# An engine whose variable is unset is skipped, and this says so; with neither set it exits 0
# without touching any cluster. A malformed value stops it (exit 2) before any work, naming the
# variable. Passwords are never printed.
#
# env: E2E_EXTERNAL_SKIP_DIRECT=1 / E2E_EXTERNAL_SKIP_CLUSTER=1 run only one half; the rest as
# hack/e2e.sh (E2E_KEEP_CLUSTER, E2E_TIMEOUT) and internal/tpcc/drivers (TPCC_E2E_WAREHOUSES, TPCC_E2E_BURST).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

say() { echo "e2e-external: $*"; }
fail() { echo "e2e-external: $*" >&2; exit 2; }

# redact prints a URL with everything up to its last '@' (user and password, even unescaped) and
# any password= parameter replaced, so no password reaches a log.
redact() { sed -E -e 's#^([A-Za-z][A-Za-z0-9+.-]*://)?.*@#\1***@#' -e 's#([?&]password=)[^&]*#\1***#g' <<<"$1"; }

cockroach=${TPCC_E2E_COCKROACH_URL:-}
ydb=${TPCC_E2E_YDB_ENDPOINT:-}

for var in TPCC_E2E_COCKROACH_URL TPCC_E2E_YDB_ENDPOINT; do
  v=${!var:-}
  if [[ $v =~ [[:space:]] || $v == *@*@* ]]; then
    fail "$var is malformed: no spaces, and at most one '@' (write an '@' of the password as %40)"
  fi
done
if [ -n "$cockroach" ]; then
  # postgres[ql]://[user[:password]@]host[:port][/database][?params]
  re='^postgres(ql)?://([^/@?#]*@)?([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?(/[^?#]*)?(\?[^#]*)?$'
  if ! [[ $cockroach =~ $re ]]; then
    fail "TPCC_E2E_COCKROACH_URL is malformed: want postgres://[user[:password]@]host[:port]/database[?sslmode=…], got $(redact "$cockroach")"
  fi
fi
if [ -n "$ydb" ]; then
  # grpc[s]://host:port/database (database path required; a query string may carry options)
  re='^grpcs?://([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}/[^?#[:space:]]+(\?[^#]*)?$'
  if ! [[ $ydb =~ $re ]]; then
    fail "TPCC_E2E_YDB_ENDPOINT is malformed: want grpc://host:port/database or grpcs://host:port/database, got $(redact "$ydb")"
  fi
fi

run=()
if [ -n "$cockroach" ]; then
  say "CockroachDB: $(redact "$cockroach")"
  run+=(Cockroach)
else
  say "CockroachDB skipped: TPCC_E2E_COCKROACH_URL is not set (postgres://user:password@host:26257/db?sslmode=…)"
fi
if [ -n "$ydb" ]; then
  say "YDB: $(redact "$ydb")"
  run+=(YDB)
else
  say "YDB skipped: TPCC_E2E_YDB_ENDPOINT is not set (grpc[s]://host:port/database)"
fi
if [ ${#run[@]} -eq 0 ]; then
  say "nothing to run: set TPCC_E2E_COCKROACH_URL and/or TPCC_E2E_YDB_ENDPOINT to prove those engines"
  exit 0
fi

ran=()
pattern="^TestExternal($(IFS='|'; echo "${run[*]}"))\$"
cd "$ROOT"
if [ "${E2E_EXTERNAL_SKIP_DIRECT:-0}" != 1 ]; then
  say "1/2 internal/tpcc/drivers against the server(s) directly: go test -run '$pattern'"
  go test -count=1 -timeout 60m -v -run "$pattern" ./internal/tpcc/drivers/
  ran+=(direct)
fi
if [ "${E2E_EXTERNAL_SKIP_CLUSTER:-0}" != 1 ]; then
  say "2/2 the e2e suite on a cluster: BenchmarkRuns with external databases"
  E2E_RUN="$pattern" "$ROOT/hack/e2e.sh"
  ran+=(cluster)
fi
say "passed: ${run[*]} (${ran[*]:-nothing: both halves skipped by E2E_EXTERNAL_SKIP_*})"
