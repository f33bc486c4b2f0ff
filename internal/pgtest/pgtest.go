// Package pgtest gives tests a real PostgreSQL: the local synchronous cluster of hack/pg-sync.sh,
// named by TPCC_PG_URL (make test starts one), and a fresh database on it per test.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URL returns TPCC_PG_URL. Unset, the test is skipped, except under CI where a missing database is
// a failure.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TPCC_PG_URL")
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TPCC_PG_URL is not set (CI is set): make test starts a local PostgreSQL for it (hack/with-pg-sync.sh)")
		}
		t.Skip("TPCC_PG_URL is not set: run hack/pg-sync.sh up and export TPCC_PG_URL=$(hack/pg-sync.sh url)")
	}
	return u
}

// Database creates an empty database named after prefix and the test on the server of base, drops
// it when the test ends, and returns its URL.
func Database(t testing.TB, base, prefix string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("%s_%s_%d", prefix, strings.ToLower(sanitize(t.Name())), time.Now().UnixNano()%1_000_000_000)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop test database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("the test server's URL is not a URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// sanitize keeps the letters and digits of a test name, at most 30 of them.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
		if b.Len() >= 30 {
			break
		}
	}
	return b.String()
}
