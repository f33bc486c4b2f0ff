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

# The first of 57432, 57442, … whose three ports (primary, two standbys) are free, unless
# PGSYNC_PORT is given: a server left behind by a killed run (or another make test) does not make
# this one fail at start.
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ -z "${PGSYNC_PORT:-}" ]; then
  PGSYNC_PORT=57432
  until port_free "$PGSYNC_PORT" && port_free $((PGSYNC_PORT + 1)) && port_free $((PGSYNC_PORT + 2)); do
    PGSYNC_PORT=$((PGSYNC_PORT + 10))
    if [ "$PGSYNC_PORT" -ge 57632 ]; then
      echo "with-pg-sync: no three free ports in 57432..57631; set PGSYNC_PORT" >&2
      exit 1
    fi
  done
fi
export PGSYNC_PORT
export PGSYNC_DIR=${PGSYNC_DIR:-$(mktemp -d /tmp/tpcc-pgsync.XXXXXX)}
cleanup() { "$here/pg-sync.sh" down >/dev/null 2>&1 || true; }
trap cleanup EXIT
"$here/pg-sync.sh" up >&2
TPCC_PG_URL=$("$here/pg-sync.sh" url)
export TPCC_PG_URL
status=0
"$@" || status=$?
exit $status
