package cockroach

import "github.com/tpcc-operator/tpcc-operator/internal/engines"

// Operator is cockroach-operator: the CrdbCluster is checked against its v2.18.3 CRD
// (internal/testenv); no CockroachDB server has run it on this project's machines.
func (Backend) Operator() *engines.Operator {
	return &engines.Operator{Name: "cockroach-operator", Version: "v2.18.3",
		Install: "kubectl apply -f https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/crds.yaml -f https://raw.githubusercontent.com/cockroachdb/cockroach-operator/v2.18.3/install/operator.yaml"}
}
