package v1alpha1

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// MinSpecProbeDuration is the shortest measured interval of a guided-search probe with
// workload.wait Spec, explicit (search.probeDuration, checked at admission by the CRD's rule,
// which spells it '30s') or defaulted: one New-Order cycle of a terminal, its 18 s keying time
// plus its 12 s mean think time (TPC-C Clause 5.2.5; internal/tpcc's KeyingTime and
// MeanThinkTime), the longest cycle of the five transactions. A shorter probe ends before an
// average terminal has completed one New-Order, so its efficiency says more about where the
// terminals happened to be in their cycles than about the database.
const MinSpecProbeDuration = 30 * time.Second

// The API server applies the defaults of an engine block's fields only when the block is present. A
// run may omit its engine's block; these functions give the block the API server would have stored
// for `{}`, so both spellings deploy the same database (validation_test.go checks they agree).

// DefaultStorageSize is the volume size when storage.size is omitted.
var DefaultStorageSize = resource.MustParse("10Gi")

// EffectivePostgres is spec.database.postgres with defaults applied, also when it is omitted.
func (d *DatabaseSpec) EffectivePostgres() PostgresSpec {
	var p PostgresSpec
	if d.Postgres != nil {
		p = *d.Postgres.DeepCopy()
	}
	if p.Instances == 0 {
		p.Instances = 3
	}
	if p.SynchronousReplicas == nil {
		two := int32(2)
		p.SynchronousReplicas = &two
	}
	if p.SynchronousCommit == "" {
		p.SynchronousCommit = "remote_apply"
	}
	if p.Tables == "" {
		p.Tables = TablesLogged
	}
	p.Storage = p.Storage.withDefaults()
	if p.Pooler != nil {
		if p.Pooler.Instances == 0 {
			p.Pooler.Instances = 1
		}
		if p.Pooler.PoolMode == "" {
			p.Pooler.PoolMode = PoolModeTransaction
		}
	}
	return p
}

// EffectiveCockroach is spec.database.cockroach with defaults applied, also when it is omitted.
func (d *DatabaseSpec) EffectiveCockroach() CockroachSpec {
	var c CockroachSpec
	if d.Cockroach != nil {
		c = *d.Cockroach.DeepCopy()
	}
	if c.Nodes == 0 {
		c.Nodes = 3
	}
	c.Storage = c.Storage.withDefaults()
	return c
}

// EffectiveYDB is spec.database.ydb with defaults applied, also when it is omitted.
func (d *DatabaseSpec) EffectiveYDB() YDBSpec {
	var y YDBSpec
	if d.YDB != nil {
		y = *d.YDB.DeepCopy()
	}
	if y.Erasure == "" {
		y.Erasure = ErasureMirror3DC
	}
	if y.StorageNodes == 0 {
		y.StorageNodes = 3
	}
	if y.DatabaseNodes == 0 {
		y.DatabaseNodes = 3
	}
	y.Storage = y.Storage.withDefaults()
	return y
}

func (s StorageSpec) withDefaults() StorageSpec {
	if s.Size.IsZero() {
		s.Size = DefaultStorageSize.DeepCopy()
	}
	return s
}

// Tables is how the loader creates the TPC-C tables: postgres.tables, or external.tables for an
// external database (Logged when omitted). Only PostgreSQL has unlogged tables; admission rejects
// Unlogged elsewhere.
func (d *DatabaseSpec) Tables() TablePersistence {
	switch {
	case d.External != nil && d.External.Tables != "":
		return d.External.Tables
	case d.External == nil && d.Engine == EnginePostgreSQL:
		return d.EffectivePostgres().Tables
	default:
		return TablesLogged
	}
}

// SearchPrecision is the search's precision in warehouses: max(1, warehouses/200).
func SearchPrecision(warehouses int32) int32 {
	return max(1, warehouses/200)
}

// EffectiveVerdict is the step's verdict; a step recorded before verdicts existed reads as
// Compliant or NonCompliant by Compliant.
func (s *StepResult) EffectiveVerdict() StepVerdict {
	switch {
	case s.Verdict != "":
		return s.Verdict
	case s.Compliant:
		return VerdictCompliant
	}
	return VerdictNonCompliant
}
