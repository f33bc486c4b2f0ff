package pgwire

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/tpcctest"
)

// pooledPoolSize is PgBouncer's server connections per database and user in these tests, well
// below the executor's pooledConns client connections: consecutive transactions of one client
// connection run on different server connections.
const pooledPoolSize, pooledConns = 3, 12

func TestPoolerExecMode(t *testing.T) {
	for mode, want := range map[tpcc.PoolerMode]pgx.QueryExecMode{
		tpcc.PoolerNone:        pgx.QueryExecModeCacheStatement,
		tpcc.PoolerSession:     pgx.QueryExecModeCacheStatement,
		tpcc.PoolerTransaction: pgx.QueryExecModeCacheDescribe,
	} {
		if got := execMode(mode); got != want {
			t.Errorf("execMode(%q) = %v, want %v", mode, got, want)
		}
	}
}

func TestPoolerURLRefusedOnCockroach(t *testing.T) {
	if _, err := tpcc.PoolerURL(Cockroach, "postgres://u@h:26257/db", "pooler:5432", tpcc.PoolerTransaction); err == nil {
		t.Fatal("CockroachDB routed through a pooler")
	}
}

// pooledDatabase loads one warehouse into a database of a private server whose
// default_transaction_isolation is set for the database (as the operator sets it in
// postgresql.conf); it returns the database's direct URL and the load's constants.
func pooledDatabase(t *testing.T) (string, tpcc.Constants) {
	t.Helper()
	server := pgtest.NewServer(t)
	url := pgtest.Database(t, server.URL(), "tpcc_pgb")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: 1, Threads: 2, Seed: 20260101, SeedSet: true, Finish: true})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	meta, err := ReadMeta(ctx, connectTx(t, url))
	if err != nil {
		t.Fatalf("read meta: %v", err)
	}
	return url, meta.Constants
}

// setServerDefault sets the database's default_transaction_isolation for the server connections
// opened from now on.
func setServerDefault(t *testing.T, url string, l isolation.Level) {
	t.Helper()
	conn := connectTx(t, url)
	db := conn.Config().Database
	if _, err := conn.Exec(context.Background(), "ALTER DATABASE "+db+" SET default_transaction_isolation = '"+l.Reported()+"'"); err != nil {
		t.Fatal(err)
	}
}

// pooledURL starts a transaction-mode PgBouncer in front of url's server and routes url to it.
func pooledURL(t *testing.T, url string) string {
	t.Helper()
	b := pgtest.NewPgBouncer(t, url, string(tpcc.PoolerTransaction), pooledPoolSize)
	u, err := tpcc.PoolerURL(Postgres, url, b.Endpoint(), tpcc.PoolerTransaction)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestPooledBurstKeepsConsistency runs a no-wait burst of all five transactions with 12 client
// connections through a transaction-mode PgBouncer of 3 server connections, at READ COMMITTED and
// REPEATABLE READ (the server's default set to the level), reads the ledger and samples the
// telemetry through it, then runs the consistency check on the server directly.
func TestPooledBurstKeepsConsistency(t *testing.T) {
	url, constants := pooledDatabase(t)
	for _, level := range []isolation.Level{isolation.ReadCommitted, isolation.RepeatableRead} {
		t.Run(string(level), func(t *testing.T) {
			setServerDefault(t, url, level)
			pooled := pooledURL(t, url)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			retry := tpcc.DefaultRetryPolicy
			retry.MaxAttempts = 100
			e, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: Postgres, URL: pooled, MaxConns: pooledConns, Retry: retry,
				Isolation: level, Pooler: tpcc.PoolerTransaction})
			if err != nil {
				t.Fatalf("NewExecutor through the pooler: %v", err)
			}
			defer e.Close()
			sampler, err := tpcc.NewTelemetrySampler(ctx, Postgres, pooled)
			if err != nil {
				t.Fatalf("telemetry through the pooler: %v", err)
			}
			defer sampler.Close()
			before, err := tpcc.ReadDistrictCounts(ctx, Postgres, pooled, 1, 1)
			if err != nil {
				t.Fatalf("ledger through the pooler: %v", err)
			}
			c := tpcctest.RunBurst(t, e, constants, 1, pooledConns, 5*time.Second)
			t.Logf("%s through PgBouncer (pool %d, %d client connections): %d transactions, %d retries, %d exhausted",
				level, pooledPoolSize, pooledConns, c.Total(), c.Retries, c.Exhausted)
			for i, err := range c.Errors {
				if i < 5 {
					t.Errorf("transaction error: %v", err)
				}
			}
			if len(c.Errors) > 0 || c.Total() == 0 {
				t.Fatalf("%d transaction errors in %d transactions", len(c.Errors), c.Total())
			}
			for _, tx := range []int{c.NewOrders, c.Payments, c.OrderStatuses, c.Deliveries, c.StockLevels} {
				if tx == 0 {
					t.Fatalf("a transaction type never ran: %+v", c)
				}
			}
			after, err := tpcc.ReadDistrictCounts(ctx, Postgres, pooled, 1, 1)
			if err != nil {
				t.Fatalf("ledger through the pooler, after: %v", err)
			}
			var grown int64
			for i := range after {
				grown += int64(after[i].Orders - before[i].Orders)
			}
			if want := int64(c.NewOrders - c.Rollbacks); grown != want {
				t.Errorf("the ledger read through the pooler counts %d new orders, the burst committed %d", grown, want)
			}
			for range 2 {
				if s := sampler.Sample(ctx); s.Error != "" {
					t.Errorf("telemetry sample through the pooler: %s", s.Error)
				}
			}
			settings, err := sampler.Settings(ctx, []string{"default_transaction_isolation"})
			if err != nil || settings["default_transaction_isolation"] != level.Reported() {
				t.Errorf("settings read back through the pooler: default_transaction_isolation %q, %v; want %q",
					settings["default_transaction_isolation"], err, level.Reported())
			}
			results, err := tpcc.Check(ctx, tpcc.CheckOptions{Driver: Postgres, URL: url, Warehouses: 1, Threads: 2})
			if err != nil {
				t.Fatalf("check: %v", err)
			}
			for _, r := range results {
				if !r.Skipped && !r.Pass {
					t.Errorf("consistency %s (%s) fails: %s", r.Condition.ID, r.Condition.Name, r.Detail)
				}
			}
		})
	}
}

// TestPooledNamedStatementsFail shows what the pooled mode avoids: the executor's default mode
// (named prepared statements, cached per client connection) through the same transaction-mode
// PgBouncer fails once a client connection's transaction lands on a server connection that has
// not prepared its statements.
func TestPooledNamedStatementsFail(t *testing.T) {
	url, constants := pooledDatabase(t)
	pooled := pooledURL(t, url)
	// pgx's own default mode, and no pooler mode for the executor: what the client did before.
	direct := strings.Replace(pooled, "default_query_exec_mode=cache_describe", "default_query_exec_mode=cache_statement", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: Postgres, URL: direct, MaxConns: pooledConns, Isolation: isolation.ReadCommitted})
	if err != nil {
		t.Fatalf("NewExecutor: %v", err)
	}
	defer e.Close()
	c := tpcctest.RunBurst(t, e, constants, 1, pooledConns, 3*time.Second)
	if len(c.Errors) == 0 {
		t.Fatalf("%d transactions with named prepared statements through a transaction-mode pooler, no error", c.Total())
	}
	if !strings.Contains(c.Errors[0].Error(), "prepared statement") {
		t.Errorf("first error %v, want one about a prepared statement", c.Errors[0])
	}
	t.Logf("%d errors, the first: %v", len(c.Errors), c.Errors[0])
}

// TestPooledVerifyNeedsServerDefault: through a transaction-mode pooler the executor sends no
// SET, so a server whose default_transaction_isolation is not the run's level is refused with
// what to set.
func TestPooledVerifyNeedsServerDefault(t *testing.T) {
	server := pgtest.NewServer(t)
	url := pgtest.Database(t, server.URL(), "tpcc_pgb")
	setServerDefault(t, url, isolation.ReadCommitted)
	pooled := pooledURL(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: Postgres, URL: pooled, MaxConns: 2,
		Isolation: isolation.RepeatableRead, Pooler: tpcc.PoolerTransaction})
	want := "through a transaction-mode pooler the server's default_transaction_isolation must be set to 'repeatable read'"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("NewExecutor(repeatable-read) on a read committed server through the pooler = %v, want an error with %q", err, want)
	}
	e, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: Postgres, URL: pooled, MaxConns: 2,
		Isolation: isolation.ReadCommitted, Pooler: tpcc.PoolerTransaction})
	if err != nil {
		t.Fatalf("NewExecutor(read-committed) on a read committed server through the pooler: %v", err)
	}
	e.Close()
}

func TestPostgresPoolerURL(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		mode      tpcc.PoolerMode
		want      string
	}{
		{"transaction", "postgres://app:pw@cluster-rw:5432/tpcc?sslmode=require", tpcc.PoolerTransaction,
			"postgres://app:pw@pooler:6432/tpcc?default_query_exec_mode=cache_describe&sslmode=require"},
		{"session", "postgres://app:pw@cluster-rw:5432/tpcc?sslmode=require", tpcc.PoolerSession,
			"postgres://app:pw@pooler:6432/tpcc?sslmode=require"},
		{"every host replaced", "postgres://app@h1:5432,h2:5433/tpcc?target_session_attrs=read-write", tpcc.PoolerSession,
			"postgres://app@pooler:6432/tpcc?target_session_attrs=read-write"},
		{"named statements overridden", "postgresql://app@h/tpcc?default_query_exec_mode=cache_statement", tpcc.PoolerTransaction,
			"postgresql://app@pooler:6432/tpcc?default_query_exec_mode=cache_describe"},
	} {
		got, err := Postgres.PoolerURL(tc.url, "pooler:6432", tc.mode)
		if err != nil || got != tc.want {
			t.Errorf("%s: PoolerURL = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestPooledSessionMode: through a session-mode PgBouncer a client connection keeps its server
// connection, so the executor behaves as if connected directly: named prepared statements and
// the SET of the run's level on a server whose default is another one.
func TestPooledSessionMode(t *testing.T) {
	url, constants := pooledDatabase(t)
	setServerDefault(t, url, isolation.ReadCommitted)
	const conns = 4 // a session-mode pool serves as many client connections at a time as it has servers
	b := pgtest.NewPgBouncer(t, url, string(tpcc.PoolerSession), conns)
	pooled, err := tpcc.PoolerURL(Postgres, url, b.Endpoint(), tpcc.PoolerSession)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	retry := tpcc.DefaultRetryPolicy
	retry.MaxAttempts = 100
	e, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: Postgres, URL: pooled, MaxConns: conns, Retry: retry,
		Isolation: isolation.RepeatableRead, Pooler: tpcc.PoolerSession})
	if err != nil {
		t.Fatalf("NewExecutor through a session-mode pooler: %v", err)
	}
	defer e.Close()
	c := tpcctest.RunBurst(t, e, constants, 1, conns, 3*time.Second)
	if len(c.Errors) > 0 || c.Total() == 0 {
		t.Fatalf("%d transaction errors in %d transactions, the first: %v", len(c.Errors), c.Total(), c.Errors)
	}
}
