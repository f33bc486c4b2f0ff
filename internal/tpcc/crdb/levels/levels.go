// Package levels is what CockroachDB needs before it runs an isolation level below SERIALIZABLE:
// the cluster setting that enables it. It links no driver, so the operator (which sets the
// setting on a CockroachDB it deploys) and the client (which names it when the server runs
// another level than asked) share it.
package levels

import "github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"

// EnablingSetting is the CockroachDB cluster setting without which CockroachDB runs a
// transaction that asks for the level as SERIALIZABLE (silently, with a notice), "" for
// Serializable. READ COMMITTED is on by default from CockroachDB 24.1, REPEATABLE READ is off by
// default (a preview in 25.2); the operator sets the one a run's level needs on a CockroachDB it
// deploys, and the client refuses to run when the server reports another level than it asked for.
func EnablingSetting(l isolation.Level) string {
	switch l {
	case isolation.ReadCommitted:
		return "sql.txn.read_committed_isolation.enabled"
	case isolation.RepeatableRead:
		return "sql.txn.repeatable_read_isolation.enabled"
	}
	return ""
}
