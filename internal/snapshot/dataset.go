package snapshot

import "fmt"

// SchemaVersion is the version of the TPC-C tables the client creates and reads: a database
// loaded under another version is not the same dataset.
const SchemaVersion = 1

// Dataset is what a loaded database holds, as `tpcc check --dataset-json` reports it (the check
// Job of a run writes it as its termination message, which the operator reads): its identity —
// which load made it — and how much the workload has grown it since. Two runs measure the same
// initial data only when their datasets have one identity and no growth; a database reused by
// later runs keeps its identity and grows (orders, history and new-order rows added by
// New-Order, Payment and Delivery).
type Dataset struct {
	Engine        string `json:"engine"`
	SchemaVersion int    `json:"schemaVersion"`
	Warehouses    int    `json:"warehouses"`
	// Seed is the load's seed, shared by every loader: equal seeds load equal rows.
	Seed     uint64 `json:"seed"`
	Finished bool   `json:"finished"`
	// Rows per table that TPC-C transactions grow, and what the load put there.
	Rows   map[string]int64 `json:"rows"`
	Loaded map[string]int64 `json:"loaded"`
}

// Growth is, per grown table, the rows added since the load (negative: fewer, e.g. more new
// orders delivered than entered).
func (d Dataset) Growth() map[string]int64 {
	out := map[string]int64{}
	for name, n := range d.Rows {
		out[name] = n - d.Loaded[name]
	}
	return out
}

// Mismatch says why a database loaded as d cannot stand for a run of the given engine (the
// client's --engine value) and warehouses, "" when it can: another engine, schema version or
// warehouse count, or an unfinished load.
func (d Dataset) Mismatch(engine string, warehouses int) string {
	switch {
	case d.Engine != engine:
		return fmt.Sprintf("the database holds a %s dataset, the run is %s", d.Engine, engine)
	case d.SchemaVersion != SchemaVersion:
		return fmt.Sprintf("the dataset has schema version %d, this client %d", d.SchemaVersion, SchemaVersion)
	case d.Warehouses != warehouses:
		return fmt.Sprintf("the database holds %d loaded warehouses, the run asks for %d", d.Warehouses, warehouses)
	case !d.Finished:
		return "the load of the database never finished (its indexes are missing)"
	}
	return ""
}
