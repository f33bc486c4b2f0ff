// Package results is the results database (docs/results.md): its versioned schema and
// migrations, the writer the operator's writer Jobs run (`tpcc results write`), and the queries
// of kubectl tpcc history, compare --baseline and report. Only the client binary and the kubectl
// plugin link it (it links pgx); the manager never does.
package results

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Schema is the PostgreSQL schema every table lives in.
const Schema = "tpcc"

// migration is one version of the schema: applied once, in a transaction, in order.
type migration struct {
	version     int
	description string
	sql         string
}

// migrations are the schema's versions. Never edit one that was released: add the next.
var migrations = []migration{
	{1, "runs, steps, per-transaction percentiles, faults, environments, results, suites", `
CREATE TABLE tpcc.suites (
  suite_uid   uuid PRIMARY KEY,
  namespace   text NOT NULL,
  name        text NOT NULL,
  labels      jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL,
  phase       text NOT NULL,
  ended_at    timestamptz,
  generation  bigint,
  spec        jsonb NOT NULL,
  status      jsonb NOT NULL,
  comparison  jsonb,
  written_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX suites_name ON tpcc.suites (namespace, name, created_at DESC);
CREATE INDEX suites_labels ON tpcc.suites USING gin (labels);

CREATE TABLE tpcc.runs (
  run_uid         uuid PRIMARY KEY,
  namespace       text NOT NULL,
  name            text NOT NULL,
  engine          text NOT NULL,
  labels          jsonb NOT NULL DEFAULT '{}',
  suite_uid       uuid,
  suite           text,
  suite_database  text,
  suite_repeat    int,
  created_at      timestamptz NOT NULL,
  phase           text NOT NULL,
  ended_at        timestamptz,
  steps_recorded  int NOT NULL,
  spec            jsonb NOT NULL,
  status          jsonb NOT NULL,
  written_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_name ON tpcc.runs (namespace, name, created_at DESC);
CREATE INDEX runs_engine ON tpcc.runs (engine, created_at DESC);
CREATE INDEX runs_labels ON tpcc.runs USING gin (labels);
CREATE INDEX runs_suite ON tpcc.runs (suite_uid);

CREATE TABLE tpcc.steps (
  run_uid            uuid NOT NULL REFERENCES tpcc.runs ON DELETE CASCADE,
  step_index         int NOT NULL,
  kind               text NOT NULL,
  attempt            int NOT NULL,
  active_warehouses  int NOT NULL,
  pods               int,
  verdict            text NOT NULL,
  compliant          boolean NOT NULL,
  tpmc               double precision NOT NULL,
  efficiency         double precision NOT NULL,
  new_orders         double precision NOT NULL,
  errors             bigint NOT NULL,
  latency_ratio      double precision,
  started_at         timestamptz,
  ended_at           timestamptz,
  duration_seconds   double precision,
  reasons            text[] NOT NULL,
  step               jsonb NOT NULL,
  summary            jsonb,
  checks             jsonb,
  histograms         jsonb,
  series             bytea,
  written_at         timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_uid, step_index)
);

CREATE TABLE tpcc.step_transactions (
  run_uid      uuid NOT NULL,
  step_index   int NOT NULL,
  transaction  text NOT NULL,
  count        bigint NOT NULL,
  p50_ms       double precision NOT NULL,
  p90_ms       double precision NOT NULL,
  p95_ms       double precision NOT NULL,
  p99_ms       double precision NOT NULL,
  max_ms       double precision NOT NULL,
  PRIMARY KEY (run_uid, step_index, transaction),
  FOREIGN KEY (run_uid, step_index) REFERENCES tpcc.steps ON DELETE CASCADE
);

CREATE TABLE tpcc.faults (
  run_uid            uuid NOT NULL,
  step_index         int NOT NULL,
  fault              int NOT NULL,
  action             text NOT NULL,
  pod                text,
  state              text NOT NULL,
  injected_at        timestamptz,
  primary_before     text,
  primary_after      text,
  unavailability_ms  double precision,
  recovery_ms        double precision,
  ledger_pass        boolean,
  consistency        text,
  injection          jsonb NOT NULL,
  measurement        jsonb,
  PRIMARY KEY (run_uid, step_index, fault),
  FOREIGN KEY (run_uid, step_index) REFERENCES tpcc.steps ON DELETE CASCADE
);

CREATE TABLE tpcc.environments (
  run_uid              uuid PRIMARY KEY REFERENCES tpcc.runs ON DELETE CASCADE,
  read_at              timestamptz,
  server_version       text,
  storage_class        text,
  storage_provisioner  text,
  operator_version     text,
  client_version       text,
  settings             jsonb NOT NULL,
  nodes                jsonb NOT NULL,
  images               jsonb NOT NULL
);

CREATE TABLE tpcc.results (
  run_uid                   uuid NOT NULL REFERENCES tpcc.runs ON DELETE CASCADE,
  generation                bigint NOT NULL,
  phase                     text NOT NULL,
  reason                    text,
  message                   text,
  max_compliant_warehouses  int,
  tpmc                      double precision,
  efficiency                double precision,
  result_step               int,
  precision                 int,
  rests_on                  int[],
  search_time_seconds       double precision,
  new_orders                double precision,
  sla_compliant             boolean,
  ended_at                  timestamptz NOT NULL,
  written_at                timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_uid, generation)
);
CREATE INDEX results_ended ON tpcc.results (ended_at DESC);
`},
	{2, "results.bound: whether max_compliant_warehouses is a bracketed capacity or a floor", `
ALTER TABLE tpcc.results ADD COLUMN bound text;
`},
	{3, "results: the price-performance of a run with spec.pricing (docs/price-performance.md)", `
ALTER TABLE tpcc.results
  ADD COLUMN currency             text,
  ADD COLUMN pricing_rule         text,
  ADD COLUMN monthly_cost         double precision,
  ADD COLUMN cost_per_tpmc_month  double precision,
  ADD COLUMN cost_per_tpmc_3y     double precision,
  ADD COLUMN tpmc_per_currency    double precision,
  ADD COLUMN price_performance    jsonb;
`},
}

// LatestVersion is the schema version this build writes and reads.
func LatestVersion() int { return migrations[len(migrations)-1].version }

// migrationLock is the advisory lock key that serialises migrations of concurrent writers.
const migrationLock = 0x74706363 // "tpcc"

// Migrate brings the schema to LatestVersion: it creates the schema and its version table if
// needed, then applies each missing migration in its own transaction under an advisory lock, so
// concurrent writers apply each once. A database whose schema is newer than this build is
// refused: an older writer must not write rows a newer schema may read differently. It returns
// the versions it applied.
func Migrate(ctx context.Context, conn *pgx.Conn) ([]int, error) {
	var applied []int
	for _, m := range migrations {
		done, err := apply(ctx, conn, m)
		if err != nil {
			return applied, err
		}
		if done {
			applied = append(applied, m.version)
		}
	}
	return applied, nil
}

// apply runs one migration unless it is there already.
func apply(ctx context.Context, conn *pgx.Conn, m migration) (bool, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return false, err
	}
	for _, stmt := range []string{
		`CREATE SCHEMA IF NOT EXISTS ` + Schema,
		`CREATE TABLE IF NOT EXISTS ` + Schema + `.schema_version (
  version      int PRIMARY KEY,
  description  text NOT NULL,
  applied_at   timestamptz NOT NULL DEFAULT now()
)`,
	} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return false, fmt.Errorf("creating the schema %s: %w", Schema, err)
		}
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+Schema+`.schema_version`).Scan(&current); err != nil {
		return false, err
	}
	if current > LatestVersion() {
		return false, fmt.Errorf("the results database's schema is version %d, newer than this build's %d: use a newer tpcc client", current, LatestVersion())
	}
	if current >= m.version {
		return false, tx.Commit(ctx)
	}
	if current != m.version-1 {
		return false, fmt.Errorf("the results database's schema is version %d, migration %d needs %d", current, m.version, m.version-1)
	}
	if _, err := tx.Exec(ctx, m.sql); err != nil {
		return false, fmt.Errorf("migration %d (%s): %w", m.version, m.description, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO `+Schema+`.schema_version (version, description) VALUES ($1, $2)`, m.version, m.description); err != nil {
		return false, err
	}
	return true, tx.Commit(ctx)
}

// Version reads the schema's version: 0 when it has none.
func Version(ctx context.Context, conn *pgx.Conn) (int, error) {
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('`+Schema+`.schema_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+Schema+`.schema_version`).Scan(&v)
	return v, err
}
