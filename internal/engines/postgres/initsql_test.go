package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
)

// The Cluster's post-init statements run as CloudNativePG runs them, as a superuser in the
// application database, on a real PostgreSQL: the owner gets pg_monitor and, from PostgreSQL 15,
// pg_checkpoint, and can then CHECKPOINT (the load's last statement).
func TestPostInitSQLOnPostgres(t *testing.T) {
	url := pgtest.Database(t, pgtest.URL(t), "initsql")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	role := fmt.Sprintf("%s_%d", Owner, time.Now().UnixNano()%1_000_000)
	if _, err := admin.Exec(ctx, "CREATE ROLE "+role+" LOGIN"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP OWNED BY "+role+"; DROP ROLE "+role) })
	r := run(nil)
	cluster := Backend{}.Cluster(r)
	for _, stmt := range cluster.Spec.Bootstrap.InitDB.PostInitSQL {
		stmt = strings.ReplaceAll(stmt, " TO "+Owner, " TO "+role)
		if _, err := admin.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var version int
	if err := admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int / 10000").Scan(&version); err != nil {
		t.Fatal(err)
	}
	var monitor, checkpoint bool
	if err := admin.QueryRow(ctx, "SELECT pg_has_role($1, 'pg_monitor', 'MEMBER'), $2 < 15 OR pg_has_role($1, 'pg_checkpoint', 'MEMBER')", role, version).
		Scan(&monitor, &checkpoint); err != nil {
		t.Fatal(err)
	}
	if !monitor || !checkpoint {
		t.Errorf("PostgreSQL %d: %s is a member of pg_monitor %v, of pg_checkpoint %v", version, role, monitor, checkpoint)
	}
	if version >= 15 {
		if _, err := admin.Exec(ctx, "SET ROLE "+role+"; CHECKPOINT; RESET ROLE"); err != nil {
			t.Errorf("CHECKPOINT as %s: %v", role, err)
		}
	}
}
