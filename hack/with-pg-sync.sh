#!/usr/bin/env bash
# Runs a command with TPCC_PG_URL pointing at a local PostgreSQL primary with two synchronous
# standbys (hack/pg-sync.sh). When TPCC_PG_URL is already set, the command runs against that server
# instead; otherwise the cluster is started for the command and removed after it, whatever its exit.
# usage: hack/with-pg-sync.sh COMMAND [ARGS...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ -n "${TPCC_PG_URL:-}" ]; then
  exec "$@"
fi

export PGSYNC_PORT=${PGSYNC_PORT:-57432}
export PGSYNC_DIR=${PGSYNC_DIR:-$(mktemp -d /tmp/tpcc-pgsync.XXXXXX)}
cleanup() { "$here/pg-sync.sh" down >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$here/pg-sync.sh" up >&2
TPCC_PG_URL=$("$here/pg-sync.sh" url)
export TPCC_PG_URL
status=0
"$@" || status=$?
exit $status
