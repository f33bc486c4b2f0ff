// Package ydb is the tpcc.Driver of YDB: its schema, BulkUpsert load, the five transactions in
// YQL over the query service, the consistency checks evaluated in the client from range scans
// (clientcheck.ChunkRows) and the telemetry of its system views.
package ydb

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// name is the --engine value.
const name = "ydb"

// Driver is YDB as a tpcc.Driver.
var Driver tpcc.Driver = driver{}

type driver struct{}

// Name is the --engine value.
func (driver) Name() string { return name }

// Capabilities: primary keys at CREATE TABLE (how YDB stores and distributes rows), no unlogged
// tables (every write is replicated by consensus), SERIALIZABLE by default and no READ COMMITTED
// for read-write transactions; no ledger reading yet.
func (driver) Capabilities() tpcc.Capabilities {
	return tpcc.Capabilities{
		Title: "YDB", URLSchemes: []string{"grpc", "grpcs"}, URLForm: "grpc(s)://host:port/database",
		DefaultIsolation: isolation.Serializable, DefaultIsolationNote: "serializable",
		RefusedIsolation: map[isolation.Level]string{
			isolation.ReadCommitted: "YDB offers no READ COMMITTED for read-write transactions: use serializable or repeatable-read (snapshot isolation, YDB 25.1+)",
		},
	}
}

// SchemaDDL is YDB's schema; YDB has no unlogged tables, so p does not change it.
func (driver) SchemaDDL(tpcc.TablePersistence) []string { return CreateTableDDL() }

// DropSchemaDDL removes every table SchemaDDL creates.
func (driver) DropSchemaDDL() []string { return DropTableDDL() }

func (driver) NewExecutor(ctx context.Context, cfg tpcc.ExecutorConfig) (tpcc.Executor, error) {
	return newYDBExecutor(ctx, cfg)
}

func (driver) OpenCheck(ctx context.Context, o tpcc.CheckOptions) (tpcc.CheckBackend, error) {
	return openYDBCheck(ctx, o)
}

func (driver) NewTelemetrySampler(ctx context.Context, url string) (tpcc.TelemetrySampler, error) {
	return newYDBTelemetry(ctx, url)
}

// ReadDistrictCounts is not implemented for YDB (Capabilities().Ledger is false); the core never
// calls it.
func (driver) ReadDistrictCounts(context.Context, string, int, int) ([]tpcc.DistrictCounts, error) {
	return nil, errNoLedger
}

func (driver) ReadDataset(ctx context.Context, url string) (snapshot.Dataset, error) {
	return readDataset(ctx, url)
}

func (driver) ReadLoaded(ctx context.Context, url string) (tpcc.LoadedData, error) {
	return readLoaded(ctx, url)
}

var errNoLedger = errors.New("the ledger check is not implemented for engine " + name)

func (driver) OpenLoader(ctx context.Context, o tpcc.LoadOptions, rows *atomic.Int64) (tpcc.BulkLoader, error) {
	return openLoader(ctx, o, rows)
}
