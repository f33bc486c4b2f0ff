// Package pgwire is the tpcc.Driver of the engines that speak the PostgreSQL protocol, PostgreSQL
// and CockroachDB, as two flavours of one driver (Flavour): the schema, the COPY load and its
// finish, the five transactions' statements, the consistency conditions in SQL, the ledger's
// reads, the dataset and meta reads, and each flavour's telemetry.
package pgwire

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/crdb"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/crdb/levels"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// The --engine values of the two flavours.
const (
	postgresName  = "postgres"
	cockroachName = "cockroach"
)

// Flavour is one engine that speaks the PostgreSQL protocol. The transactions' statements, the
// loader, the checks and the ledger are shared; what sets PostgreSQL and CockroachDB apart is held
// here, as data, and every difference is read from a field.
type Flavour struct {
	name string
	caps tpcc.Capabilities

	intType             string         // the 32-bit integer column type
	copyFormat          CopyFormat     // the load's COPY format
	historyKey          string         // HISTORY's surrogate key column, "" for none
	statisticsTargets   bool           // SET STATISTICS 0 on the text columns no query reads (StatisticsDDL)
	advisoryLock        bool           // schema creation and finish run under pg_advisory_lock
	warehouseInOneTx    bool           // a warehouse's rows and its done mark commit in one transaction
	analyzeAfterLoad    bool           // the finish runs ANALYZE (else the engine collects statistics itself)
	checkpointAfterLoad bool           // the finish ends with a CHECKPOINT
	checkIsolation      pgx.TxIsoLevel // the level of the check's read-only snapshot transactions
	ledgerBegin         string         // BEGIN of the ledger's read-only snapshot transaction
	// isolationHint says how the engine is made to run a level it ran as another (the executor's
	// check of the level, Verify); nil: there is nothing to say.
	isolationHint func(isolation.Level) string
	// telemetry connects the flavour's sampler.
	telemetry func(ctx context.Context, url string) (tpcc.TelemetrySampler, error)
}

var urlSchemes = []string{"postgres", "postgresql"}

// Postgres is PostgreSQL: keys after the load, binary COPY, unlogged tables, statistics and
// VACUUM after the load, READ COMMITTED with row locks by default, replicas whose lag the
// telemetry reads.
var Postgres = &Flavour{
	name: postgresName,
	caps: tpcc.Capabilities{
		Title: "PostgreSQL", URLSchemes: urlSchemes, URLForm: "postgres://…",
		Ledger: true, UnloggedTables: true, KeysAfterLoad: true, VacuumAfterLoad: true, ReplicationLag: true,
		DefaultIsolation: isolation.ReadCommitted, DefaultIsolationNote: "read committed with row locks",
		SettingKind: "a PostgreSQL parameter", Pooler: true,
	},
	intType: "integer", copyFormat: CopyBinary, statisticsTargets: true, advisoryLock: true,
	warehouseInOneTx: true, analyzeAfterLoad: true, checkpointAfterLoad: true,
	checkIsolation: pgx.RepeatableRead, ledgerBegin: postgresLedgerBegin,
	telemetry: func(ctx context.Context, url string) (tpcc.TelemetrySampler, error) { return newPGTelemetry(ctx, url) },
}

// Cockroach is CockroachDB: keys at CREATE TABLE (how it stores and distributes rows), text COPY
// (its binary COPY support is partial), a random HISTORY key, SERIALIZABLE by default, cluster
// settings.
var Cockroach = &Flavour{
	name: cockroachName,
	caps: tpcc.Capabilities{
		Title: "CockroachDB", URLSchemes: urlSchemes, URLForm: "postgres://…",
		Ledger:           true,
		DefaultIsolation: isolation.Serializable, DefaultIsolationNote: "serializable",
		SettingKind: "a CockroachDB cluster setting",
	},
	intType: "INT4", copyFormat: CopyText, historyKey: CockroachHistoryKey,
	checkIsolation: pgx.Serializable, ledgerBegin: cockroachLedgerBegin, isolationHint: cockroachIsolationHint,
	telemetry: func(ctx context.Context, url string) (tpcc.TelemetrySampler, error) {
		return newCRDBTelemetry(ctx, url)
	},
}

// cockroachIsolationHint names the cluster setting without which CockroachDB runs a transaction
// that asks for l as SERIALIZABLE (silently, with a notice only).
func cockroachIsolationHint(l isolation.Level) string {
	s := levels.EnablingSetting(l)
	if s == "" {
		return ""
	}
	return fmt.Sprintf("CockroachDB upgrades the level unless the cluster setting %s is true: set it in cockroach.clusterSettings, or SET CLUSTER SETTING %s = true", s, s)
}

// CockroachHistoryKey is the surrogate key column of HISTORY on CockroachDB, which would otherwise
// add a hidden sequential rowid (a write hotspot). It is not part of the loaded column list: the
// server fills it with gen_random_uuid().
const CockroachHistoryKey = "rowid"

// Name is the --engine value.
func (f *Flavour) Name() string { return f.name }

// String is the --engine value, for logs.
func (f *Flavour) String() string { return f.name }

// Capabilities is what the flavour offers.
func (f *Flavour) Capabilities() tpcc.Capabilities { return f.caps }

// CopyFormat is the COPY format the flavour's load streams.
func (f *Flavour) CopyFormat() CopyFormat { return f.copyFormat }

// NewTelemetrySampler connects the flavour's sampler; its errors name --url.
func (f *Flavour) NewTelemetrySampler(ctx context.Context, url string) (tpcc.TelemetrySampler, error) {
	return f.telemetry(ctx, url)
}

// ReadDistrictCounts reads the ledger's district counts in one read-only snapshot transaction
// (ledgerBegin): D_NEXT_O_ID and the order count come from the same snapshot.
func (f *Flavour) ReadDistrictCounts(ctx context.Context, url string, from, to int) ([]tpcc.DistrictCounts, error) {
	return readPgwireDistrictCounts(ctx, url, f.ledgerBegin, postgresLedgerCounts, from, to)
}

// settingsFlavour is a flavour whose load applies cluster settings (tpcc.SettingsApplier).
type settingsFlavour struct{ *Flavour }

// SettingsFlag is the load's flag that names a cluster setting.
func (settingsFlavour) SettingsFlag() (name, usage string) {
	return "cluster-setting", "name=value: a CockroachDB cluster setting applied with SET CLUSTER SETTING before loading (repeatable; cockroach only)"
}

// ApplySettings sets the --cluster-setting values before the load (SET CLUSTER SETTING,
// idempotent: every loader pod applies them).
func (settingsFlavour) ApplySettings(ctx context.Context, url string, pairs []string) error {
	settings, err := crdb.ParseSettings(pairs)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("--cluster-setting: connect: %s", snapshot.RedactCredentials(err.Error()))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := crdb.Apply(ctx, conn, settings); err != nil {
		return fmt.Errorf("--cluster-setting: %s", snapshot.RedactCredentials(err.Error()))
	}
	return nil
}

// copyFilesFlavour is a flavour that writes a load as COPY files (tpcc.CopyFilesWriter).
type copyFilesFlavour struct{ *Flavour }

// WriteCopyFiles writes warehouses from..to as COPY files and SQL scripts under dir.
func (c copyFilesFlavour) WriteCopyFiles(ctx context.Context, dir string, seed uint64, now time.Time, from, to, threads int) (string, error) {
	files, err := WriteCopyFiles(ctx, dir, seed, now, from, to, threads)
	return files.Dir, err
}

// PostgresDriver is PostgreSQL as a tpcc.Driver, with its COPY files.
func PostgresDriver() tpcc.Driver { return copyFilesFlavour{Postgres} }

// CockroachDriver is CockroachDB as a tpcc.Driver, with its cluster settings.
func CockroachDriver() tpcc.Driver { return settingsFlavour{Cockroach} }

// FlavourOf is the flavour behind a driver of this package, nil for another driver.
func FlavourOf(d tpcc.Driver) *Flavour {
	switch d := d.(type) {
	case *Flavour:
		return d
	case copyFilesFlavour:
		return d.Flavour
	case settingsFlavour:
		return d.Flavour
	}
	return nil
}
