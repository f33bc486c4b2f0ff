package crdbgrammar

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/crdb"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/crdb/levels"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

// TestCockroachGrammar runs the CockroachDB flavour's code paths — schema, load (fresh and
// resuming a partial warehouse), finish, check, the five transactions in every branch, the
// ledger's read, the reads of the loaded data and of the dataset, and the run's telemetry
// sampler — against the local PostgreSQL through a recording proxy, and parses every statement
// they sent with CockroachDB 25.2's own grammar. The statements come off the wire, not from a
// list: a new statement in any of these paths is parsed without touching this test. The
// flavour's statement tables are then used the other way round, to prove that every branch ran.
func TestCockroachGrammar(t *testing.T) {
	base := testDatabase(t)
	rec, recURL, err := NewRecorder(base)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const warehouses = 2
	crdbDriver := pgwire.CockroachDriver()
	load := tpcc.LoadOptions{Driver: crdbDriver, URL: recURL, Warehouses: warehouses, Threads: 2, Seed: 20261123, SeedSet: true}

	rec.SetComponent("load")
	start := time.Now()
	if err := tpcc.Load(ctx, load); err != nil {
		t.Fatalf("load: %v", err)
	}
	// A loader killed mid-warehouse leaves it "loading": the next load cleans and reloads it.
	direct, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close(context.Background())
	if _, err := direct.Exec(ctx, "UPDATE "+tpcc.WarehouseLoadTable+" SET state = $1 WHERE w_id = 2", tpcc.StateLoading); err != nil {
		t.Fatal(err)
	}
	t.Logf("load: %v", time.Since(start).Round(time.Millisecond))
	rec.SetComponent("load (resume)")
	if err := tpcc.Load(ctx, load); err != nil {
		t.Fatalf("resumed load: %v", err)
	}
	rec.SetComponent("finish")
	load.Finish = true
	if err := tpcc.Load(ctx, load); err != nil {
		t.Fatalf("finish: %v", err)
	}
	t.Logf("resumed load and finish: %v", time.Since(start).Round(time.Millisecond))
	// CockroachDB collects table statistics by itself after bulk writes; PostgreSQL plans the
	// check's joins badly without them. Test setup, not recorded.
	if _, err := direct.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	rec.SetComponent("check")
	runCheck(t, ctx, tpcc.CheckOptions{Driver: crdbDriver, URL: recURL, Warehouses: warehouses, Threads: 2, LoadTime: true})

	t.Logf("check: %v", time.Since(start).Round(time.Millisecond))
	e, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: crdbDriver, URL: recURL, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	lines := func(w int, remote, unused, repeated bool) []tpcc.NewOrderLine {
		out := []tpcc.NewOrderLine{{ItemID: 31, SupplyWarehouseID: w, Quantity: 3}, {ItemID: 32, SupplyWarehouseID: w, Quantity: 1},
			{ItemID: 33, SupplyWarehouseID: w, Quantity: 7}, {ItemID: 34, SupplyWarehouseID: w, Quantity: 2},
			{ItemID: 35, SupplyWarehouseID: w, Quantity: 5}}
		if remote {
			out[1].SupplyWarehouseID = 3 - w
		}
		if unused {
			out[4].ItemID = tpcc.UnusedItemID
		}
		if repeated {
			out[3].ItemID = out[2].ItemID // one stock row, two lines: a stock statement per line
		}
		return out
	}
	rec.SetComponent("NewOrder")
	for _, c := range []struct {
		name                     string
		remote, unused, repeated bool
	}{{"local", false, false, false}, {"remote lines", true, false, false}, {"unused item (rollback)", false, true, false},
		{"repeated stock row", false, false, true}} {
		res, err := e.NewOrder(ctx, &tpcc.NewOrderInput{WarehouseID: 1, DistrictID: 2, CustomerID: 3, Lines: lines(1, c.remote, c.unused, c.repeated)})
		if err != nil || res.RolledBack != c.unused {
			t.Fatalf("NewOrder %s: %+v, %v", c.name, res, err)
		}
	}
	rec.SetComponent("Payment")
	for _, in := range []tpcc.PaymentInput{
		{WarehouseID: 1, DistrictID: 1, CustomerWarehouseID: 1, CustomerDistrictID: 1, Customer: tpcc.CustomerSelector{ID: 7}, AmountCents: 1234},
		{WarehouseID: 1, DistrictID: 1, CustomerWarehouseID: 2, CustomerDistrictID: 5, AmountCents: 100,
			Customer: tpcc.CustomerSelector{ByLastName: true, LastName: tpcc.LastName(0)}},
	} {
		if _, err := e.Payment(ctx, &in); err != nil {
			t.Fatalf("Payment %+v: %v", in.Customer, err)
		}
	}
	rec.SetComponent("OrderStatus")
	for _, sel := range []tpcc.CustomerSelector{{ID: 3}, {ByLastName: true, LastName: tpcc.LastName(1)}} {
		if _, err := e.OrderStatus(ctx, &tpcc.OrderStatusInput{WarehouseID: 1, DistrictID: 2, Customer: sel}); err != nil {
			t.Fatalf("OrderStatus %+v: %v", sel, err)
		}
	}
	rec.SetComponent("Delivery")
	if res, err := e.Delivery(ctx, &tpcc.DeliveryInput{WarehouseID: 1, CarrierID: 4}); err != nil || res.Delivered == 0 {
		t.Fatalf("Delivery: %+v, %v", res, err)
	}
	rec.SetComponent("StockLevel")
	if _, err := e.StockLevel(ctx, &tpcc.StockLevelInput{WarehouseID: 1, DistrictID: 2, Threshold: 15}); err != nil {
		t.Fatalf("StockLevel: %v", err)
	}
	// The other isolation levels (workload.isolation): their connection setup and read-back, and
	// the statements that differ (BEGIN, Delivery's locking clause), run through the recorder.
	for _, l := range []isolation.Level{isolation.ReadCommitted, isolation.RepeatableRead} {
		rec.SetComponent("isolation " + string(l))
		el, err := tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: crdbDriver, URL: recURL, MaxConns: 1, Isolation: l})
		if err != nil {
			t.Fatalf("executor at %s: %v", l, err)
		}
		if _, err := el.Payment(ctx, &tpcc.PaymentInput{WarehouseID: 2, DistrictID: 3, CustomerWarehouseID: 2, CustomerDistrictID: 3,
			Customer: tpcc.CustomerSelector{ID: 9}, AmountCents: 500}); err != nil {
			t.Fatalf("Payment at %s: %v", l, err)
		}
		if res, err := el.Delivery(ctx, &tpcc.DeliveryInput{WarehouseID: 2, CarrierID: 5}); err != nil || res.Delivered == 0 {
			t.Fatalf("Delivery at %s: %+v, %v", l, res, err)
		}
		el.Close()
	}
	// The run's telemetry sampler reads crdb_internal; PostgreSQL gets stand-in tables of the
	// columns it reads (test setup, not recorded), so every one of its queries runs and is seen.
	for _, ddl := range []string{
		"CREATE SCHEMA crdb_internal",
		"CREATE TABLE crdb_internal.gossip_nodes (node_id INT8, is_live BOOL)",
		"CREATE TABLE crdb_internal.kv_store_status (node_id INT8, store_id INT8, used INT8, metrics JSONB)",
		"CREATE TABLE crdb_internal.kv_node_status (node_id INT8, metrics JSONB)",
		"INSERT INTO crdb_internal.gossip_nodes VALUES (1, true)",
		`INSERT INTO crdb_internal.kv_store_status VALUES (1, 1, 1000, '{"replicas": 3, "replicas.leaders": 1,
		  "replicas.leaseholders": 1, "ranges.underreplicated": 0, "ranges.unavailable": 0, "livebytes": 10}')`,
		`INSERT INTO crdb_internal.kv_node_status VALUES (1, '{"sql.txn.commit.count": 5}')`,
	} {
		if _, err := direct.Exec(ctx, ddl); err != nil {
			t.Fatal(err)
		}
	}
	rec.SetComponent("telemetry")
	sampler, err := tpcc.NewTelemetrySampler(ctx, crdbDriver, recURL)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if s := sampler.Sample(ctx); s.Error != "" {
			t.Errorf("telemetry sample on the stand-in crdb_internal: %s", s.Error)
		}
	}
	sampler.Close()
	rec.SetComponent("ledger")
	counts, err := tpcc.ReadDistrictCounts(ctx, crdbDriver, recURL, 1, warehouses)
	if err != nil || len(counts) != warehouses*tpcc.DistrictsPerWarehouse {
		t.Fatalf("ledger: %d district counts, %v", len(counts), err)
	}
	rec.SetComponent("loaded data")
	if ld, err := crdbDriver.ReadLoaded(ctx, recURL); err != nil || len(ld.States) != warehouses {
		t.Fatalf("ReadLoaded: %+v, %v", ld, err)
	}
	rec.SetComponent("dataset")
	if ds, err := crdbDriver.ReadDataset(ctx, recURL); err != nil || len(ds.Rows) != len(tpcc.GrownTables) {
		t.Fatalf("ReadDataset: %+v, %v", ds, err)
	}
	rec.SetComponent("check (after the transactions)")
	runCheck(t, ctx, tpcc.CheckOptions{Driver: crdbDriver, URL: recURL, Warehouses: warehouses, Threads: 1})
	e.Close()
	rec.Close()

	sent := rec.Statements()
	tags := map[string]int{}
	for _, s := range sent {
		p, probs := Check(s)
		for _, tag := range p.Tags {
			tags[tag]++
		}
		for _, pr := range probs {
			t.Errorf("[%s] %s", s.Component, pr)
		}
	}
	t.Logf("CockroachDB 25.2's parser read %d distinct statements sent by the CockroachDB flavour:", len(sent))
	perComponent := Components(sent)
	for _, c := range SortedComponents(sent) {
		t.Logf("  %-32s %3d", c, perComponent[c])
	}
	t.Logf("  by statement tag: %v", tags)

	// The other way round: every statement of the flavour's tables was among those sent, so
	// every branch above ran (by id, by name, remote lines, rollback, every check condition,
	// the ledger).
	seen := map[string]bool{}
	for _, s := range sent {
		seen[s.SQL] = true
	}
	want, err := pgwire.StatementTexts(pgwire.Cockroach)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range isolation.Levels {
		texts, err := pgwire.StatementTextsAt(pgwire.Cockroach, l)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, texts...)
		want = append(want, pgwire.SetDefault(l), pgwire.Begin(l))
	}
	want = append(want, pgwire.ShowIsolation)
	want = append(want, pgwire.Cockroach.SchemaDDL(tpcc.TablesLogged)...)
	want = append(want, pgwire.SecondaryIndexDDL()...)
	for _, tb := range tpcc.Tables {
		want = append(want, pgwire.CopyStatementFormat(tb, pgwire.Cockroach.CopyFormat()))
	}
	for _, c := range tpcc.Conditions {
		sql := pgwire.ConditionSQL(c.ID)
		if sql == "" {
			t.Errorf("condition %s has no SQL", c.ID)
		}
		want = append(want, sql)
	}
	want = append(want, pgwire.LedgerTexts(pgwire.Cockroach)...)
	for _, w := range want {
		if !seen[w] {
			t.Errorf("never sent by the code paths above (a branch did not run?):\n%s", w)
		}
	}
	t.Logf("every one of the flavour's %d table statements (transactions, DDL, COPY, check conditions, ledger) was among them", len(want))

	// Statements no code path of the client sends (tests drop tables with them): parsed from
	// their source function.
	for _, sql := range pgwire.Cockroach.DropSchemaDDL() {
		if _, probs := Check(Sent{SQL: sql, BoundParams: -1}); len(probs) > 0 {
			t.Errorf("DropSchemaDDL: %v", probs)
		}
	}
}

// TestCockroachGrammarClusterSettings parses the statements of cockroach.clusterSettings — SET
// CLUSTER SETTING before the load, SHOW CLUSTER SETTING to read them back — for real setting
// names of every value type (CockroachDB's documentation), the ones that enable isolation levels,
// and values with quotes. PostgreSQL has no cluster settings, so these cannot come off the wire.
func TestCockroachGrammarClusterSettings(t *testing.T) {
	settings := map[string]string{
		levels.EnablingSetting(isolation.ReadCommitted):      "true",
		levels.EnablingSetting(isolation.RepeatableRead):     "true",
		"kv.snapshot_rebalance.max_rate":                     "64MiB",     // byte size
		"kv.range_merge.queue.enabled":                       "false",     // bool, a keyword-like segment
		"server.time_until_store_dead":                       "5m0s",      // duration
		"sql.stats.automatic_collection.fraction_stale_rows": "0.2",       // float
		"kv.transaction.max_intents_bytes":                   "4194304",   // int
		"cluster.organization":                               "it's ours", // string with a quote
		"sql.defaults.default_int_size":                      "4",
		"admission.kv.enabled":                               "true",
		"timeseries.storage.enabled":                         "false",
	}
	for name, value := range settings {
		for _, build := range []func() (string, error){
			func() (string, error) { return crdb.SetClusterSetting(name, value) },
			func() (string, error) { return crdb.ShowClusterSetting(name) },
		} {
			sql, err := build()
			if err != nil {
				t.Fatal(err)
			}
			p, probs := Check(Sent{SQL: sql, BoundParams: -1})
			if len(probs) > 0 {
				t.Errorf("%v", probs)
				continue
			}
			t.Logf("%-22s %s", p.Tags[0], sql)
		}
	}
	// Negative control: a value not quoted as a literal does not parse as one.
	if _, probs := Check(Sent{SQL: "SET CLUSTER SETTING cluster.organization = it's", BoundParams: -1}); len(probs) == 0 {
		t.Error("an unquoted value with a quote parsed")
	}
}

func runCheck(t *testing.T, ctx context.Context, o tpcc.CheckOptions) {
	t.Helper()
	results, err := tpcc.Check(ctx, o)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	for _, r := range results {
		if !r.Pass && !r.Skipped {
			t.Errorf("check %s %s: %s", r.Condition.ID, r.Condition.Name, r.Detail)
		}
	}
}

// TestCockroachGrammarNegativeControl shows that the check is not vacuous: statements PostgreSQL
// accepts but CockroachDB's grammar does not are caught, and so are a wrong parameter count, a
// placeholder cast two ways and an AS OF SYSTEM TIME read.
func TestCockroachGrammarNegativeControl(t *testing.T) {
	texts, err := pgwire.StatementTexts(pgwire.Cockroach)
	if err != nil {
		t.Fatal(err)
	}
	find := func(prefix string) string {
		for _, s := range texts {
			if strings.HasPrefix(s, prefix) {
				return s
			}
		}
		t.Fatalf("no statement starts with %q", prefix)
		return ""
	}
	warehouseTax := find("SELECT w_tax")
	delivery := find("WITH delivered AS")
	for _, c := range []struct {
		name string
		sent Sent
		want string
	}{
		// PostgreSQL's own finish statements: VACUUM and SET STATISTICS are PostgreSQL-only.
		{"VACUUM (PostgreSQL only)", Sent{SQL: "VACUUM (ANALYZE) stock", BoundParams: -1}, "parser rejects it"},
		{"SET STATISTICS (PostgreSQL only)", Sent{SQL: pgwire.StatisticsDDL()[0], BoundParams: -1}, "parser rejects it"},
		// The real Delivery statement with a deliberate error in CockroachDB's locking clause.
		{"two lock wait policies", Sent{SQL: strings.Replace(delivery, "FOR UPDATE", "FOR UPDATE NOWAIT SKIP LOCKED", 1), BoundParams: 3}, "parser rejects it"},
		{"parameter count", Sent{SQL: warehouseTax, BoundParams: 2}, "2 parameters bound, CockroachDB's parser counts 1"},
		{"placeholder cast two ways", Sent{SQL: "SELECT $1::INT4 + 1, $1::TEXT", BoundParams: 1}, "$1 is cast to"},
		{"stale read", Sent{SQL: strings.Replace(warehouseTax, "FROM warehouse", "FROM warehouse AS OF SYSTEM TIME '-5s'", 1), BoundParams: 1}, "AS OF SYSTEM TIME"},
	} {
		_, probs := Check(c.sent)
		if len(probs) == 0 || !strings.Contains(probs[0].Reason, c.want) {
			t.Errorf("%s: problems %v, want one containing %q", c.name, probs, c.want)
			continue
		}
		t.Logf("negative control %-34s caught: %s", c.name, probs[0].Reason)
	}
}

// testDatabase creates an empty database on TPCC_PG_URL (hack/pg-sync.sh url) for this test and
// drops it afterwards. Unset, the test is skipped, except under CI where it is a failure.
func testDatabase(t *testing.T) string { return pgtest.Database(t, pgtest.URL(t), "tpcc_crdbgrammar") }
