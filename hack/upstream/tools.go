//go:build tools

// The programs this module builds (hack/upstream/build.sh), imported so that go mod tidy keeps
// their packages' modules.
package tools

import (
	_ "github.com/rancher/local-path-provisioner"
	_ "helm.sh/helm/v4/cmd/helm"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
	_ "sigs.k8s.io/metrics-server/cmd/metrics-server"
)
