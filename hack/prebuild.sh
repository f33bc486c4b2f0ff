#!/usr/bin/env bash
# Builds, once per version, what `make demo` needs beyond envtest's kube-apiserver and etcd: Helm,
# Kubernetes' node binaries and kubectl, the cluster's images (CoreDNS, local-path-provisioner,
# metrics-server), CloudNativePG and its PostgreSQL image, and the project's images. Not the e2e's
# Prometheus: .ci/run builds it beside make demo's run, whose CPU is capped, instead of here beside
# make test (hack/images.sh monitoring). Everything lands in the caches make demo reads (hack/k8s-bins.sh,
# hack/images.sh, hack/cluster/helm.sh), so on a warm machine this takes seconds.
#
# .ci/run starts it at nice 19 beside envtest's build, make verify and make test: on a fresh
# machine those leave CPU idle (module downloads, links, tests waiting on the clock) that the builds
# take instead of running one after the other before the demo. nice 19 does not keep them off the
# tests' CPU: measured fresh (docs/testing.md, run4) envtest's build took 881 s instead of 653 and
# make verify 1075 s instead of 607, the whole 81.6 minutes instead of ~95. make demo starts only
# once it has ended.
#
# usage: hack/prebuild.sh     (needs the Debian packages hack/cluster/up.sh installs, and root for
#                              the PostgreSQL image's debootstrap)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
start=$(date +%s)
step() { echo "prebuild: [$(($(date +%s) - start))s] $*" >&2; }
# Helm first: make test's charts package needs it too. Then the images: they share nothing with
# envtest's kube-apiserver, which .ci/run builds at the same time; Kubernetes' node binaries last,
# reusing the packages that build compiled.
"$ROOT/hack/cluster/helm.sh" >/dev/null
step "helm ready"
"$ROOT/hack/images.sh" cluster cnpg project >/dev/null
step "images ready"
"$ROOT/hack/k8s-bins.sh" kubectl kube-controller-manager kube-scheduler kubelet kube-proxy >/dev/null   # kubectl first: the charts test wants it
step "Kubernetes' node binaries and kubectl ready"
