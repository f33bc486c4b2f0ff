package pgwire

import (
	"context"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// The PostgreSQL DDL runs (twice: idempotent), and the late keys and indexes build on it.
func TestPostgresDDLExecutes(t *testing.T) {
	c := connect(t, pgtestDatabase(t))
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		for _, s := range Postgres.SchemaDDL(tpcc.TablesLogged) {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Fatalf("round %d: %v\n%s", round, err, s)
			}
		}
	}
	for _, pk := range Postgres.PrimaryKeyDDL() {
		if _, err := c.Exec(ctx, pk.SQL); err != nil {
			t.Fatalf("%v\n%s", err, pk.SQL)
		}
	}
	for _, s := range SecondaryIndexDDL() {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	for _, s := range Postgres.DropSchemaDDL() {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
}
