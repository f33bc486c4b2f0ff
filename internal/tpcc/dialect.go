package tpcc

import (
	"fmt"
	"strings"
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
