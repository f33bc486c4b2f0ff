package tpcc

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// Driver is one database engine as the workload sees it: how its schema is written, how it is
// loaded, how the five transactions, the consistency checks, the ledger and the telemetry read and
// write it. The core (this package) asks a driver and its Capabilities; it never compares engine
// names. Implementations live in the dialect subpackages and are listed by the registry
// (internal/tpcc/drivers).
type Driver interface {
	// Name is the --engine value.
	Name() string
	// Capabilities is what the engine offers, as data.
	Capabilities() Capabilities
	// SchemaDDL is the statements creating the nine tables and the meta tables, each idempotent,
	// with tables of persistence p (unlogged only where Capabilities().UnloggedTables).
	SchemaDDL(p TablePersistence) []string
	// DropSchemaDDL removes every table SchemaDDL creates.
	DropSchemaDDL() []string
	// OpenLoader connects the bulk path of a load (BulkLoader), whose steps the core's Load runs;
	// o is validated and defaulted, and the loader adds every row it writes to rows.
	OpenLoader(ctx context.Context, o LoadOptions, rows *atomic.Int64) (BulkLoader, error)
	// NewExecutor connects the transactions' executor; cfg is validated by the core's NewExecutor.
	NewExecutor(ctx context.Context, cfg ExecutorConfig) (Executor, error)
	// OpenCheck connects the reads of the consistency check (Check).
	OpenCheck(ctx context.Context, o CheckOptions) (CheckBackend, error)
	// NewTelemetrySampler connects a sampler of the database's own signals; its errors name --url.
	NewTelemetrySampler(ctx context.Context, url string) (TelemetrySampler, error)
	// ReadDistrictCounts reads the ledger's side of the database for warehouses from..to in one
	// snapshot; only drivers whose Capabilities().Ledger is set implement it.
	ReadDistrictCounts(ctx context.Context, url string, from, to int) ([]DistrictCounts, error)
	// ReadDataset reads the identity and the grown tables' sizes of a loaded database.
	ReadDataset(ctx context.Context, url string) (snapshot.Dataset, error)
	// ReadLoaded reads what a run needs to know before it starts: the meta row, the load state of
	// every warehouse and the server's version.
	ReadLoaded(ctx context.Context, url string) (LoadedData, error)
}

// Capabilities is what an engine offers, as the core and the command line ask it.
type Capabilities struct {
	// Title is the engine's name in prose, e.g. in help texts.
	Title string
	// URLSchemes are the schemes of a connection URL; URLForm shows one in help texts.
	URLSchemes []string
	URLForm    string
	// Ledger: ReadDistrictCounts works (tpcc run --ledger-check).
	Ledger bool
	// UnloggedTables: the engine can create tables that write no WAL (--tables unlogged).
	UnloggedTables bool
	// KeysAfterLoad: the primary keys are added after the bulk phase, not at CREATE TABLE.
	KeysAfterLoad bool
	// VacuumAfterLoad: the finish can VACUUM every table (LoadOptions.Vacuum).
	VacuumAfterLoad bool
	// ReplicationLag: the telemetry reads the standbys' replay lag (--max-replication-lag).
	ReplicationLag bool
	// DefaultIsolation is the level of a run that asks for none; DefaultIsolationNote describes it
	// in help texts ("read committed with row locks").
	DefaultIsolation     isolation.Level
	DefaultIsolationNote string
	// RefusedIsolation names the levels the engine cannot run, each with the reason.
	RefusedIsolation map[isolation.Level]string
	// SettingKind is what a server setting is called on this engine, in help texts.
	SettingKind string
	// Pooler: a step can run through a connection pooler in front of the server (PoolerRouter,
	// tpcc run --pooler-endpoint), in transaction or session mode.
	Pooler bool
}

// SupportsIsolation says why the engine cannot run level l ("" when it can).
func (c Capabilities) SupportsIsolation(l isolation.Level) string { return c.RefusedIsolation[l] }

// LoadedData is what a run needs to know about the database before it starts.
type LoadedData struct {
	Meta          Meta
	States        map[int]string // warehouse → load state
	ServerVersion string
}

// SettingsApplier is a driver that applies server settings given on the load's command line
// before it loads: the flag's name and usage are the driver's.
type SettingsApplier interface {
	SettingsFlag() (name, usage string)
	ApplySettings(ctx context.Context, url string, pairs []string) error
}

// CopyFilesWriter is a driver that can write a load as files its server reads itself, instead of
// loading (tpcc load --copy-files). It returns the absolute directory written.
type CopyFilesWriter interface {
	WriteCopyFiles(ctx context.Context, dir string, seed uint64, now time.Time, from, to, threads int) (string, error)
}

// JoinNames renders names as prose: "a", "a or b", "a, b or c" (with conj "or").
func JoinNames(names []string, conj string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + conj + " " + names[len(names)-1]
}
