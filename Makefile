# tpcc-operator — `make help` lists the targets.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

# controller-gen is built in hack/upstream's module graph (its go.mod names the version), its
# Kubernetes libraries the project's, which make verify compiles anyway.
CONTROLLER_TOOLS_VERSION := $(shell hack/upstream/build.sh version sigs.k8s.io/controller-tools)
BIN := $(CURDIR)/bin
CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_TOOLS_VERSION)
# -vet=off: make verify runs go vet's full set of analyzers over every package, tests included (a
# superset of go test's). go test's own would also compute its facts for every dependency again,
# under other flags: ~170 s of CPU on a fresh machine (measured by forcing them to be recomputed,
# go test -vet=printf,atomic -run '^$$' ./...: 150 s instead of 60).
GO_TEST_FLAGS ?= -count=1 -timeout 40m -vet=off
# One build configuration for the project's packages wherever they are compiled — make verify's vet,
# make test, make e2e, the plugin and the images (hack/images.sh builds them the same way): static
# (CGO_ENABLED=0) and -trimpath, as the images ship them. Go's build cache keys every package on
# both, so two configurations compile every dependency (k6, client-go, controller-runtime…) twice
# on a fresh machine. .ci/run exports the same two for the commands it runs outside make.
export CGO_ENABLED := 0
export GOFLAGS := $(strip -trimpath $(filter-out -trimpath,$(GOFLAGS)))
# A nested module: CockroachDB's parser checks our SQL there without entering the root build list.
CRDB_GRAMMAR := internal/tpcc/crdbgrammar
# The operator's two images for your registry: IMG_PREFIX/manager:TAG and IMG_PREFIX/tpcc:TAG (the
# chart's image.prefix and image.tag). CONTAINER_TOOL=podman works as well.
IMG_PREFIX ?= tpcc-operator
TAG ?= dev
CONTAINER_TOOL ?= docker

.PHONY: help
help: ## List the targets.
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-13s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build the manager, the tpcc client and the kubectl plugin (bin/kubectl-tpcc: copy it onto PATH) into bin/.
	go build -o $(BIN)/manager ./cmd/manager
	go build -o $(BIN)/kubectl-tpcc ./cmd/kubectl-tpcc
	@if [ -d cmd/tpcc ]; then go build -o $(BIN)/tpcc ./cmd/tpcc; fi

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code.
	$(CONTROLLER_GEN) object paths=./api/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRD and the manager's RBAC role from markers.
	$(CONTROLLER_GEN) crd:allowDangerousTypes=true paths=./api/... output:crd:artifacts:config=config/crd/bases
	go run ./hack/crdtrim config/crd/bases/*.yaml
	$(CONTROLLER_GEN) rbac:roleName=manager-role paths=./controllers/... paths=./internal/... output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) rbac:roleName=fault-injector paths=./cmd/fault-injector/... output:rbac:artifacts:config=config/fault-injector
	cp config/crd/bases/bench.oltp.io_benchmarkruns.yaml config/crd/bases/bench.oltp.io_benchmarksuites.yaml config/crd/bases/bench.oltp.io_networkfaults.yaml charts/tpcc-operator/files/

.PHONY: verify
verify: $(CONTROLLER_GEN) ## Fail when generated files are stale, code is unformatted or vet complains.
	hack/verify.sh "$(CONTROLLER_GEN)"

# go test runs packages in the order given, GO_TEST_P at a time. The three that take minutes go
# first and side by side (measured on 2 cores, docs/testing.md: 729 s instead of 950 with them at
# their alphabetical places, two at a time, where the workload's package started last and ran
# alone): they wait on TPC-C's clock part of the time, so three keep two cores busy. The workload's
# minutes are its PostgreSQL-wire driver's tests against the local cluster (internal/tpcc/pgwire);
# the core's take under a minute. CockroachDB's grammar (its own module) runs beside them.
LONG_TEST_PACKAGES := ./controllers/run ./internal/tpcc/pgwire ./cmd/tpcc
GO_TEST_P ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ "$$n" -gt 3 ] && echo "$$n" || echo 3)

.PHONY: test
test: ## All tests: unit, envtest (real API server), the workload on a local synchronous PostgreSQL, CockroachDB's grammar.
	KUBEBUILDER_ASSETS="$$(hack/envtest-assets.sh)" hack/with-pg-sync.sh bash -c \
	  'status=0; grammar=$$(mktemp); \
	   (cd $(CRDB_GRAMMAR) && go test $(GO_TEST_FLAGS) ./...) > "$$grammar" 2>&1 & grammar_pid=$$!; \
	   go test -p $(GO_TEST_P) $(GO_TEST_FLAGS) $(LONG_TEST_PACKAGES) ./... || status=1; \
	   wait $$grammar_pid || status=1; cat "$$grammar"; rm -f "$$grammar"; exit $$status'

.PHONY: envtest
envtest: ## Print the folder of envtest's kube-apiserver and etcd (built from source on first use).
	@hack/envtest-assets.sh

$(CONTROLLER_GEN):
	hack/upstream/build.sh build sigs.k8s.io/controller-tools/cmd/controller-gen $@

.PHONY: docker-build
docker-build: ## Build the manager and client images with Docker: IMG_PREFIX/manager:TAG, IMG_PREFIX/tpcc:TAG (Dockerfile).
	$(CONTAINER_TOOL) build --target manager -t $(IMG_PREFIX)/manager:$(TAG) .
	$(CONTAINER_TOOL) build --target client -t $(IMG_PREFIX)/tpcc:$(TAG) .

.PHONY: docker-push
docker-push: ## Push both images (IMG_PREFIX=registry.example.com/tpcc-operator TAG=0.1.0), as the chart's image.prefix/tag name them.
	$(CONTAINER_TOOL) push $(IMG_PREFIX)/manager:$(TAG)
	$(CONTAINER_TOOL) push $(IMG_PREFIX)/tpcc:$(TAG)

.PHONY: images
images: ## Build every image offline (cluster add-ons, CloudNativePG, PostgreSQL, manager, client) with hack/mkimg, no Docker daemon.
	hack/images.sh

.PHONY: cluster-up
cluster-up: ## Bring up the local Kubernetes, four nodes on this machine (root; prints its kubeconfig).
	hack/cluster/up.sh

.PHONY: cluster-down
cluster-down: ## Stop the local cluster and restore the machine as it was.
	hack/cluster/down.sh

.PHONY: demo
demo: ## Run config/samples/demo.yaml end to end (local cluster; a cluster of yours only with what it needs installed) and print its result.
	hack/demo.sh

.PHONY: report-png
REPORT_HTML ?= $(BIN)/demo.html
report-png: ## Render the top of a report (REPORT_HTML, by default make demo's bin/demo.html) in headless Chromium into docs/report.png, the picture README shows.
	go run ./hack/reportpng $(REPORT_HTML) docs/report.png

.PHONY: demo-suite
demo-suite: ## Run config/samples/suite-demo.yaml (PostgreSQL: remote_apply, remote_write, async) end to end and print the comparison.
	hack/demo-suite.sh

.PHONY: e2e
e2e: ## The e2e suite on a real cluster (current one, or a local one brought up and removed).
	hack/e2e.sh

.PHONY: e2e-long
e2e-long: ## The e2e suite with its long cases (node loss, failover, the demo suite, guided search): ~1.5 h on 2 cores.
	E2E_LONG=1 hack/e2e.sh

.PHONY: e2e-external
e2e-external: ## CockroachDB/YDB you already have: TPCC_E2E_COCKROACH_URL, TPCC_E2E_YDB_ENDPOINT (unset: skipped, said so).
	hack/e2e-external.sh
