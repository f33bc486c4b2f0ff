package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
)

// Against the local sync cluster: `tpcc load --tables unlogged` creates the nine tables unlogged.
func TestLoadUnloggedTablesCommand(t *testing.T) {
	url := freshDatabase(t, pgtest.URL(t))
	code, stdout, stderr := runCLI(t, "load", "--engine", "postgres", "--url", url, "--warehouses", "1", "--threads", "2", "--seed", "3", "--tables", "unlogged")
	if code != 0 || !strings.Contains(stdout, "loaded warehouses 1-1 of 1") {
		t.Fatalf("load: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var unlogged int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relpersistence = 'u' AND relname = ANY($1)`,
		[]string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}).Scan(&unlogged); err != nil {
		t.Fatal(err)
	}
	if unlogged != 9 {
		t.Errorf("%d of the nine tables are unlogged", unlogged)
	}
}
