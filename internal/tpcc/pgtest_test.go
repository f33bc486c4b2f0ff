package tpcc

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

// pgtestURL returns the URL of the local sync cluster (hack/pg-sync.sh url) from TPCC_PG_URL.
// Unset, the test is skipped, except under CI where a missing database is a failure.
func pgtestURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TPCC_PG_URL")
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("TPCC_PG_URL is not set (CI is set): start hack/pg-sync.sh up and export TPCC_PG_URL=$(hack/pg-sync.sh url)")
		}
		t.Skip("TPCC_PG_URL is not set: run hack/pg-sync.sh up and export TPCC_PG_URL=$(hack/pg-sync.sh url)")
	}
	return u
}

// pgtestDatabase creates an empty database for this test on the TPCC_PG_URL server and drops it
// when the test ends; it returns the new database's URL.
func pgtestDatabase(t testing.TB) string {
	t.Helper()
	base := pgtestURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to TPCC_PG_URL: %v", err)
	}
	defer admin.Close(ctx)
	name := fmt.Sprintf("tpcc_t_%s_%d", strings.ToLower(sanitize(t.Name())), time.Now().UnixNano()%1_000_000_000)
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
		t.Fatalf("TPCC_PG_URL is not a URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

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
