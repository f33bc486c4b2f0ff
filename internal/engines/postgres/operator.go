package postgres

import "github.com/tpcc-operator/tpcc-operator/internal/engines"

// Operator is CloudNativePG: the Cluster is typed from github.com/cloudnative-pg/api and tested
// against the CRDs of CloudNativePG 1.29.1 (internal/testenv), which the local cluster also runs.
func (Backend) Operator() *engines.Operator {
	return &engines.Operator{Name: "CloudNativePG", Version: "1.29.1",
		Install: "kubectl apply --server-side -f https://raw.githubusercontent.com/cloudnative-pg/cloudnative-pg/v1.29.1/releases/cnpg-1.29.1.yaml"}
}
