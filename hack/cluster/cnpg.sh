#!/usr/bin/env bash
# Prints CloudNativePG's own release manifest (taken from its Go module by hack/images.sh), patched
# to run the locally built images: the operator, its pull policy, the default PostgreSQL image and
# the PgBouncer image of Poolers.
# Fails when an expected upstream line is gone, naming it.
#
# usage: hack/cluster/cnpg.sh IMAGES_DIR | kubectl apply --server-side -f -
set -euo pipefail
images=${1:?usage: cnpg.sh IMAGES_DIR}
source "$images/images.env"
upstream="$images/cnpg.upstream.yaml"
[ -f "$upstream" ] || { echo "cnpg: $upstream is missing: run hack/images.sh cnpg" >&2; exit 1; }
: "${POSTGRES_IMAGE:?cnpg: no PostgreSQL image in $images/images.env: run hack/images.sh cnpg}"
: "${PGBOUNCER_IMAGE:?cnpg: no PgBouncer image in $images/images.env: run hack/images.sh cnpg}"
expect() { # COUNT PATTERN: the upstream manifest must still contain it COUNT times
  local n; n=$(grep -cE "$2" "$upstream" || true)
  [ "$n" = "$1" ] || { echo "cnpg: upstream manifest has $n lines matching '$2', expected $1" >&2; exit 1; }
}
expect 2 'ghcr.io/cloudnative-pg/cloudnative-pg:'
expect 1 '^\s+imagePullPolicy: Always$'
expect 1 '^\s+- name: OPERATOR_IMAGE_NAME$'
sed -E \
  -e "s#ghcr.io/cloudnative-pg/cloudnative-pg:[0-9.]+#$CNPG_OPERATOR_IMAGE#g" \
  -e 's#^(\s+)imagePullPolicy: Always$#\1imagePullPolicy: IfNotPresent#' \
  -e "s#^(\s+)- name: OPERATOR_IMAGE_NAME\$#\1- name: POSTGRES_IMAGE_NAME\n\1  value: $POSTGRES_IMAGE\n\1- name: PGBOUNCER_IMAGE_NAME\n\1  value: $PGBOUNCER_IMAGE\n&#" \
  "$upstream"
