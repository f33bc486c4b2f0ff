#!/usr/bin/env bash
# Prints hack/cluster/metrics-server.yaml filled in for the local cluster: the local image, and a
# serving certificate for metrics-server.kube-system.svc signed by the cluster CA in PKI_DIR (issued
# there once, again when that CA changed), with the CA as the APIService's caBundle.
#
# usage: hack/cluster/metrics-server.sh IMAGES_DIR PKI_DIR | kubectl apply -f -
set -euo pipefail
images=${1:?usage: metrics-server.sh IMAGES_DIR PKI_DIR}
pki=${2:?usage: metrics-server.sh IMAGES_DIR PKI_DIR}
die() { echo "metrics-server: $*" >&2; exit 1; }
source "$images/images.env"
[ -n "${METRICS_SERVER_IMAGE:-}" ] || die "$images/images.env names no METRICS_SERVER_IMAGE: run hack/images.sh cluster"
[ -f "$pki/ca.crt" ] && [ -f "$pki/ca.key" ] || die "no cluster CA ($pki/ca.crt, ca.key)"

crt="$pki/metrics-server.crt" key="$pki/metrics-server.key"
if ! openssl verify -CAfile "$pki/ca.crt" "$crt" >/dev/null 2>&1; then
  name=metrics-server.kube-system.svc
  openssl genrsa -out "$key" 2048 2>/dev/null
  openssl req -new -key "$key" -subj "/CN=$name" -out "$pki/metrics-server.csr"
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" "subjectAltName=DNS:$name,DNS:$name.cluster.local,DNS:metrics-server.kube-system" \
    > "$pki/metrics-server.ext"
  openssl x509 -req -in "$pki/metrics-server.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -extfile "$pki/metrics-server.ext" -out "$crt" 2>/dev/null
  rm -f "$pki/metrics-server.csr" "$pki/metrics-server.ext"
fi

b64() { base64 -w0 "$1"; }
sed -e "s#@METRICS_SERVER_IMAGE@#$METRICS_SERVER_IMAGE#" -e "s#@CA_BUNDLE@#$(b64 "$pki/ca.crt")#" \
  -e "s#@TLS_CRT@#$(b64 "$crt")#" -e "s#@TLS_KEY@#$(b64 "$key")#" \
  "$(dirname "$0")/metrics-server.yaml"
