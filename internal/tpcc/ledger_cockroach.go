package tpcc

import "context"

// cockroachLedger reads the ledger's district counts from CockroachDB: its transactions are
// SERIALIZABLE, so one read-only transaction is one consistent snapshot; the query is the
// PostgreSQL one (plain joins and aggregates CockroachDB accepts as is).
type cockroachLedger struct{}

const cockroachLedgerBegin = `BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY`

func (cockroachLedger) readDistrictCounts(ctx context.Context, url string, from, to int) ([]DistrictCounts, error) {
	return readPgwireDistrictCounts(ctx, url, cockroachLedgerBegin, postgresLedgerCounts, from, to)
}
