package pgwire

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/tpcctest"
)

func connect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func queryInt(t *testing.T, c *pgx.Conn, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func loadForTest(t *testing.T, url string, o tpcc.LoadOptions) {
	t.Helper()
	o.Driver, o.URL = Postgres, url
	if o.Threads == 0 {
		o.Threads = 2
	}
	if !o.SeedSet {
		o.Seed, o.SeedSet = 7, true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := tpcc.Load(ctx, o); err != nil {
		t.Fatalf("load: %v", err)
	}
}

// wantCounts checks the exact cardinalities of W warehouses, order_line against sum(o_ol_cnt).
func wantCounts(t *testing.T, c *pgx.Conn, w int64) {
	t.Helper()
	want := map[string]int64{
		"warehouse": w, "district": 10 * w, "customer": 30_000 * w, "history": 30_000 * w,
		"orders": 30_000 * w, "new_order": 9_000 * w, "stock": 100_000 * w, "item": 100_000,
	}
	for table, n := range want {
		if got := queryInt(t, c, "SELECT count(*) FROM "+table); got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
	}
	lines := queryInt(t, c, "SELECT count(*) FROM order_line")
	if sum := queryInt(t, c, "SELECT sum(o_ol_cnt) FROM orders"); lines != sum {
		t.Errorf("order_line: %d rows, sum(o_ol_cnt) = %d", lines, sum)
	}
	if lines < 9*30_000*w || lines > 11*30_000*w {
		t.Errorf("order_line: %d rows, want about %d", lines, 300_000*w)
	}
}

func TestLoadTwoWarehouses(t *testing.T) {
	url := pgtestDatabase(t)
	var last atomic.Value
	loadForTest(t, url, tpcc.LoadOptions{Warehouses: 2, Finish: true, Progress: func(p tpcc.LoadProgress) { last.Store(p) }})
	c := connect(t, url)
	wantCounts(t, c, 2)
	if p := last.Load().(tpcc.LoadProgress); p.Phase != "done" || p.WarehousesDone != 2 || p.Rows < 1_000_000 {
		t.Errorf("final progress %+v", p)
	}

	t.Run("initial values", func(t *testing.T) {
		checks := []struct {
			name     string
			sql      string
			min, max int64
		}{
			{"customers 1..1000 named by id", `SELECT count(*) FROM customer WHERE c_id <= 1000 AND c_last <>
				(ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[(c_id-1)/100+1] ||
				(ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[(c_id-1)/10%10+1] ||
				(ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[(c_id-1)%10+1]`, 0, 0},
			{"ORIGINAL in 10 % of i_data (per mille)", "SELECT 1000 * count(*) FILTER (WHERE i_data LIKE '%ORIGINAL%') / count(*) FROM item", 95, 105},
			{"ORIGINAL in 10 % of s_data (per mille)", "SELECT 1000 * count(*) FILTER (WHERE s_data LIKE '%ORIGINAL%') / count(*) FROM stock", 95, 105},
			{"10 % BC credit (per mille)", "SELECT 1000 * count(*) FILTER (WHERE c_credit = 'BC') / count(*) FROM customer", 90, 110},
			{"900 new_order per district", "SELECT count(*) FROM (SELECT no_w_id, no_d_id FROM new_order GROUP BY 1, 2 HAVING count(*) = 900 AND min(no_o_id) = 2101 AND max(no_o_id) = 3000) d", 20, 20},
			{"undelivered orders have no carrier", "SELECT count(*) FROM orders WHERE (o_id >= 2101) <> (o_carrier_id IS NULL)", 0, 0},
			{"delivered lines: amount 0, date = entry", `SELECT count(*) FROM order_line JOIN orders ON (o_w_id, o_d_id, o_id) = (ol_w_id, ol_d_id, ol_o_id)
				WHERE o_id < 2101 AND (ol_amount <> 0 OR ol_delivery_d IS DISTINCT FROM o_entry_d)`, 0, 0},
			{"undelivered lines: amount in [0.01, 9999.99], null date", "SELECT count(*) FROM order_line WHERE ol_o_id >= 2101 AND (ol_amount NOT BETWEEN 0.01 AND 9999.99 OR ol_delivery_d IS NOT NULL)", 0, 0},
			{"history amount 10.00", "SELECT count(*) FROM history WHERE h_amount <> 10.00", 0, 0},
			{"warehouse ytd 300000.00", "SELECT count(*) FROM warehouse WHERE w_ytd <> 300000.00", 0, 0},
			{"district ytd and next id", "SELECT count(*) FROM district WHERE d_ytd <> 30000.00 OR d_next_o_id <> 3001", 0, 0},
			{"customer balances", "SELECT count(*) FROM customer WHERE c_balance <> -10.00 OR c_ytd_payment <> 10.00 OR c_payment_cnt <> 1 OR c_delivery_cnt <> 0 OR c_credit_lim <> 50000.00", 0, 0},
			{"o_c_id is a permutation per district", "SELECT count(*) FROM (SELECT o_w_id, o_d_id FROM orders GROUP BY 1, 2 HAVING count(DISTINCT o_c_id) = 3000) d", 20, 20},
			{"stock quantity in [10, 100]", "SELECT count(*) FROM stock WHERE s_quantity NOT BETWEEN 10 AND 100 OR s_ytd <> 0", 0, 0},
			{"secondary indexes exist", "SELECT count(*) FROM pg_indexes WHERE indexname IN ('customer_name_idx', 'orders_customer_idx')", 2, 2},
			{"every table analyzed", "SELECT count(*) FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL AND relname IN ('warehouse','district','customer','history','orders','new_order','order_line','item','stock')", 9, 9},
			{"statistics on predicate columns", "SELECT count(*) FROM pg_stats WHERE (tablename, attname) IN (('customer','c_last'),('customer','c_first'),('stock','s_quantity'),('order_line','ol_i_id'),('order_line','ol_delivery_d'),('new_order','no_o_id'))", 6, 6},
			{"no statistics on payload text", "SELECT count(*) FROM pg_stats WHERE attname IN ('s_dist_01','s_data','c_data','ol_dist_info','i_data','h_data')", 0, 0},
			{"primary keys exist", "SELECT count(*) FROM pg_constraint WHERE contype = 'p' AND conrelid::regclass::text IN ('warehouse','district','customer','orders','new_order','order_line','item','stock')", 8, 8},
		}
		for _, ck := range checks {
			if got := queryInt(t, c, ck.sql); got < ck.min || got > ck.max {
				t.Errorf("%s: %d, want [%d, %d]", ck.name, got, ck.min, ck.max)
			}
		}
	})

	t.Run("meta records valid constants", func(t *testing.T) {
		m, err := ReadMeta(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		if m.Seed != 7 || m.Warehouses != 2 || !m.ItemsLoaded || !m.Finished || m.Constants != tpcc.ConstantsForSeed(7) {
			t.Errorf("meta %+v", m)
		}
	})

	t.Run("repeated load skips", func(t *testing.T) {
		var p tpcc.LoadProgress
		start := time.Now()
		loadForTest(t, url, tpcc.LoadOptions{Warehouses: 2, Finish: true, Progress: func(x tpcc.LoadProgress) { p = x }})
		if p.WarehousesSkipped != 2 || p.Rows != 0 {
			t.Errorf("repeat: %+v, want 2 skipped and 0 rows", p)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("repeat took %v", d)
		}
		wantCounts(t, c, 2)
	})

	t.Run("a different seed is refused", func(t *testing.T) {
		err := tpcc.Load(context.Background(), tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: 2, Threads: 1, Seed: 8, SeedSet: true})
		if err == nil || !strings.Contains(err.Error(), "--seed 8") {
			t.Errorf("load with another seed: %v", err)
		}
	})
}

func TestKilledLoadResumes(t *testing.T) {
	url := pgtestDatabase(t)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once the first warehouse is committed and others are mid-COPY.
	err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: 3, Threads: 2, Seed: 7, SeedSet: true, Finish: true,
		Progress: func(p tpcc.LoadProgress) {
			if p.WarehousesDone >= 1 && p.Rows > 500_000 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted load returned %v, want context.Canceled", err)
	}
	c := connect(t, url)
	doneBefore := queryInt(t, c, "SELECT count(*) FROM "+tpcc.WarehouseLoadTable+" WHERE state = 'done'")
	if doneBefore < 1 || doneBefore > 2 {
		t.Fatalf("%d warehouses done after the interruption, want 1 or 2", doneBefore)
	}
	if got := queryInt(t, c, "SELECT count(DISTINCT w_id) FROM warehouse"); got != doneBefore {
		t.Fatalf("%d warehouse rows after the interruption, %d marked done: a partial warehouse is visible", got, doneBefore)
	}

	var p tpcc.LoadProgress
	loadForTest(t, url, tpcc.LoadOptions{Warehouses: 3, Finish: true, Progress: func(x tpcc.LoadProgress) { p = x }})
	if int64(p.WarehousesSkipped) != doneBefore {
		t.Errorf("resume skipped %d warehouses, want %d", p.WarehousesSkipped, doneBefore)
	}
	wantCounts(t, c, 3)
	// The late primary keys would not build over duplicates; check directly too.
	if dup := queryInt(t, c, "SELECT count(*) FROM (SELECT 1 FROM stock GROUP BY s_w_id, s_i_id HAVING count(*) > 1) d"); dup != 0 {
		t.Errorf("%d duplicated stock keys", dup)
	}
}

// Two loaders of disjoint ranges start together on an empty database (the Indexed Job case): the
// schema is created once, the item table loaded once, and a final load over 1..N only finishes.
func TestConcurrentRangeLoaders(t *testing.T) {
	url := pgtestDatabase(t)
	ranges := [][2]int{{1, 2}, {3, 4}}
	errs := make(chan error, len(ranges))
	for _, r := range ranges {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			// No seed: the loaders must agree on the one the first of them records.
			errs <- tpcc.Load(ctx, tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: 4, From: r[0], To: r[1], Threads: 1})
		}()
	}
	for range ranges {
		if err := <-errs; err != nil {
			t.Fatalf("range loader: %v", err)
		}
	}
	c := connect(t, url)
	m, err := ReadMeta(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if m.Finished {
		t.Error("range loads must not finish the database")
	}
	var p tpcc.LoadProgress
	if err := tpcc.Load(context.Background(), tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: 4, Threads: 2, Finish: true,
		Progress: func(x tpcc.LoadProgress) { p = x }}); err != nil {
		t.Fatalf("final load: %v", err)
	}
	if p.WarehousesSkipped != 4 || p.Rows != 0 {
		t.Errorf("final load %+v: want all 4 skipped, 0 rows", p)
	}
	wantCounts(t, c, 4)
	// Same seed across the two loaders: regenerating warehouse 3 with the recorded seed gives
	// the stored customer names.
	gen := &tpcc.Generator{Seed: m.Seed, Constants: m.Constants, Now: tpcctest.Now}
	rows := tpcctest.Collect(t, gen, tpcc.CustomerTable, 3)
	var last string
	if err := c.QueryRow(context.Background(), "SELECT c_last FROM customer WHERE c_w_id = 3 AND c_d_id = 10 AND c_id = 3000").Scan(&last); err != nil {
		t.Fatal(err)
	}
	if want := string(rows[len(rows)-1][tpcctest.ColIndex(tpcc.CustomerTable, "c_last")].Text); last != want {
		t.Errorf("warehouse 3 customer 3000: c_last %q, regenerated with the recorded seed %q", last, want)
	}
}

// With Vacuum the finish leaves every table vacuumed: its visibility map covers every page, so a
// later autovacuum (the loaders' insert counts may reach the statistics after the VACUUM) skips
// them all instead of scanning the freshly loaded tables during the first measurements.
//
// A transaction of another database stays open through the load, as make test's other packages
// keep them on the shared server: the finish's index builds and ANALYZEs then hold snapshots
// whose horizon is that transaction, and a VACUUM beside them would leave pages not all-visible.
func TestLoadWithVacuum(t *testing.T) {
	url := pgtestDatabase(t)
	c := connect(t, url)
	other := connect(t, pgtestDatabase(t))
	tx, err := other.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())                                           //nolint:errcheck
	if _, err := tx.Exec(context.Background(), "SELECT txid_current()"); err != nil { // assigns the xid
		t.Fatal(err)
	}
	requested := func() int64 { return queryInt(t, c, "SELECT checkpoints_req FROM pg_stat_bgwriter") }
	before := requested()
	loadForTest(t, url, tpcc.LoadOptions{Warehouses: 1, Finish: true, Vacuum: true})
	wantCounts(t, c, 1)
	// The finish ends with a CHECKPOINT (a standby restarted after the load replays from there).
	if after := requested(); after <= before {
		t.Errorf("requested checkpoints %d before the load, %d after: the finish made none", before, after)
	}
	var behind []string
	rows, err := c.Query(context.Background(), `SELECT relname || ' (' || relallvisible || ' of ' || relpages || ' pages)' FROM pg_class
		WHERE relname IN ('warehouse','district','customer','history','orders','new_order','order_line','item','stock')
		AND (relpages = 0 OR relallvisible < relpages) ORDER BY relname`)
	if err == nil {
		behind, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(behind) > 0 {
		t.Errorf("tables not all-visible after the load: %s", strings.Join(behind, ", "))
	}
	if got := queryInt(t, c, `SELECT count(*) FROM pg_stat_user_tables WHERE last_vacuum IS NOT NULL AND last_analyze IS NOT NULL
		AND relname IN ('warehouse','district','customer','history','orders','new_order','order_line','item','stock')`); got != 9 {
		t.Errorf("%d of 9 tables vacuumed and analyzed", got)
	}
}
