package tpcc

import (
	"fmt"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// Dialect is a database engine the workload speaks to.
type Dialect string

const (
	Postgres  Dialect = "postgres"
	Cockroach Dialect = "cockroach"
	YDB       Dialect = "ydb"
)

// Dialects lists the supported engines in the order they are documented.
var Dialects = []Dialect{Postgres, Cockroach, YDB}

// ParseDialect turns an --engine value into a Dialect, naming the accepted values on error.
func ParseDialect(s string) (Dialect, error) {
	for _, d := range Dialects {
		if strings.EqualFold(s, string(d)) {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown engine %q: want one of postgres, cockroach, ydb", s)
}

// SpeaksPostgresWire reports whether the engine is reached through the PostgreSQL protocol (pgx).
func (d Dialect) SpeaksPostgresWire() bool { return d == Postgres || d == Cockroach }

// KeysAfterLoad reports whether primary keys are added after the bulk phase. PostgreSQL builds an
// index faster in one sort than row by row during COPY; CockroachDB and YDB need the primary key
// at CREATE TABLE (it is how they store and distribute the rows).
func (d Dialect) KeysAfterLoad() bool { return d == Postgres }

// CopyFormat is the COPY format the loader streams: binary for PostgreSQL, text for CockroachDB.
func (d Dialect) CopyFormat() CopyFormat {
	if d == Postgres {
		return CopyBinary
	}
	return CopyText
}

// HasUnloggedTables reports whether the engine can create tables that write no WAL: PostgreSQL's
// CREATE UNLOGGED TABLE. CockroachDB and YDB replicate every write by consensus; they have none.
func (d Dialect) HasUnloggedTables() bool { return d == Postgres }

// tableKind is the word between CREATE and TABLE for tables of the given persistence.
func (d Dialect) tableKind(p TablePersistence) string {
	if p == TablesUnlogged && d.HasUnloggedTables() {
		return "UNLOGGED "
	}
	return ""
}

// DefaultIsolation is the level the dialect runs when none is asked for: READ COMMITTED with
// explicit row locks on PostgreSQL, SERIALIZABLE on CockroachDB and YDB (their own defaults).
func (d Dialect) DefaultIsolation() isolation.Level {
	if d == Postgres {
		return isolation.ReadCommitted
	}
	return isolation.Serializable
}

// SupportsIsolation says why the engine cannot run level l ("" when it can): YDB's read-write
// transactions are serializable or snapshot isolation (RepeatableRead), never READ COMMITTED.
func (d Dialect) SupportsIsolation(l isolation.Level) string {
	if d == YDB && l == isolation.ReadCommitted {
		return "YDB offers no READ COMMITTED for read-write transactions: use serializable or repeatable-read (snapshot isolation, YDB 25.1+)"
	}
	return ""
}
