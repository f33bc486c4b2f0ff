package ydb

import "github.com/tpcc-operator/tpcc-operator/internal/engines"

// Operator is ydb-operator: Storage and Database are checked against its 0.8.0 CRDs
// (internal/testenv); no YDB server has run them on this project's machines.
func (Backend) Operator() *engines.Operator {
	return &engines.Operator{Name: "ydb-operator", Version: "0.8.0",
		Install: "helm repo add ydb https://charts.ydb.tech && helm install ydb-operator ydb/ydb-operator --version 0.8.0"}
}
