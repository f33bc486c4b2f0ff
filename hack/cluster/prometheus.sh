#!/usr/bin/env bash
# Prints hack/cluster/prometheus.yaml filled in for the local cluster: the local Prometheus image and
# the namespace of the operator whose metrics Service it scrapes.
#
# usage: hack/cluster/prometheus.sh IMAGES_DIR OPERATOR_NAMESPACE | kubectl apply -f -
set -euo pipefail
images=${1:?usage: prometheus.sh IMAGES_DIR OPERATOR_NAMESPACE}
namespace=${2:?usage: prometheus.sh IMAGES_DIR OPERATOR_NAMESPACE}
die() { echo "prometheus: $*" >&2; exit 1; }
source "$images/images.env"
[ -n "${PROMETHEUS_IMAGE:-}" ] || die "$images/images.env names no PROMETHEUS_IMAGE: run hack/images.sh monitoring"
sed -e "s#@PROMETHEUS_IMAGE@#$PROMETHEUS_IMAGE#" -e "s#@OPERATOR_NAMESPACE@#$namespace#" "$(dirname "$0")/prometheus.yaml"
