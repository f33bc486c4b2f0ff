package pgwire

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// checkWithoutIndexes is PostgreSQL whose check does not create the HISTORY indexes it reads by
// (ensureCheckIndexes), to measure the check without them.
type checkWithoutIndexes struct{ *Flavour }

func (c checkWithoutIndexes) OpenCheck(ctx context.Context, o tpcc.CheckOptions) (tpcc.CheckBackend, error) {
	p, err := c.openCheck(ctx, o, false)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// BenchmarkCheck loads W warehouses into a fresh database (unlogged tables: the check reads the
// same pages, the standbys are spared the WAL) and runs the check over them in chunks of 10
// warehouses, first with the HISTORY indexes (tpcc.HistoryIndexes), then with them dropped. It
// reports the check's seconds, seconds per warehouse, and per HISTORY row the HISTORY rows and
// index entries the server read (historyReads), which a check linear in the data keeps constant
// as W grows. It logs how each condition's plan reads HISTORY. W is 10 and 40, or the comma-separated TPCC_CHECK_BENCH_WAREHOUSES
// (a warehouse takes about 100 MB per server and 1 s to load on the 2-core machine).
// Run: hack/with-pg-sync.sh bash -c 'go test -run ^$ -bench BenchmarkCheck -benchtime 1x ./internal/tpcc/pgwire'
func BenchmarkCheck(b *testing.B) {
	sizes := []int{10, 40}
	if s := os.Getenv("TPCC_CHECK_BENCH_WAREHOUSES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			w, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || w < 1 {
				b.Fatalf("TPCC_CHECK_BENCH_WAREHOUSES=%q: want warehouse counts separated by commas", s)
			}
			sizes = append(sizes, w)
		}
	}
	base := pgtest.URL(b)
	for _, w := range sizes {
		b.Run(fmt.Sprintf("warehouses=%d", w), func(b *testing.B) {
			url := pgtest.Database(b, base, "tpcc_checkbench")
			ctx := context.Background()
			start := time.Now()
			err := tpcc.Load(ctx, tpcc.LoadOptions{Driver: Postgres, URL: url, Warehouses: w, Threads: 2,
				Seed: 7, SeedSet: true, Finish: true, Vacuum: true, Tables: tpcc.TablesUnlogged})
			if err != nil {
				b.Fatalf("load: %v", err)
			}
			b.Logf("loaded %d warehouses in %s", w, time.Since(start).Round(time.Second))
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(ctx)
			var rows int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM history").Scan(&rows); err != nil {
				b.Fatal(err)
			}
			variants := []struct {
				name   string
				driver tpcc.Driver
			}{{"index", Postgres}, {"no-index", checkWithoutIndexes{Postgres}}}
			for _, v := range variants {
				b.Run(v.name, func(b *testing.B) {
					if v.name == "no-index" {
						for _, ix := range tpcc.HistoryIndexes {
							if _, err := conn.Exec(ctx, "DROP INDEX IF EXISTS "+ix.Name); err != nil {
								b.Fatal(err)
							}
						}
					}
					logHistoryPlans(b, conn)
					var elapsed time.Duration
					var read, readEntries int64
					for range b.N {
						beforeRows, beforeEntries := historyReads(b, conn)
						start := time.Now()
						res, err := tpcc.Check(ctx, tpcc.CheckOptions{Driver: v.driver, URL: url, Warehouses: w, Threads: 2,
							LoadTime: true, ChunkSize: 10})
						if err != nil {
							b.Fatalf("check: %v", err)
						}
						elapsed = time.Since(start)
						var report strings.Builder
						if !tpcc.WriteCheckReport(&report, res) {
							b.Fatalf("check failed:\n%s", report.String())
						}
						afterRows, afterEntries := historyReads(b, conn)
						read, readEntries = afterRows-beforeRows, afterEntries-beforeEntries
					}
					perRow, entriesPerRow := float64(read)/float64(rows), float64(readEntries)/float64(rows)
					b.ReportMetric(elapsed.Seconds(), "s")
					b.ReportMetric(elapsed.Seconds()/float64(w), "s/warehouse")
					b.ReportMetric(perRow, "history-rows-read/row")
					b.ReportMetric(entriesPerRow, "history-index-entries-read/row")
					b.Logf("%d warehouses, %s: check %.1f s (%.3f s/warehouse); of %d history rows, %d rows read (%.2f per row) and %d index entries (%.2f per row)",
						w, v.name, elapsed.Seconds(), elapsed.Seconds()/float64(w), rows, read, perRow, readEntries, entriesPerRow)
				})
			}
		})
	}
}

// historyReads is what the server has read of HISTORY, once every other session of the database
// has ended: its rows (seq_tup_read + idx_tup_fetch of pg_stat_user_tables) and its indexes'
// entries (idx_tup_read of pg_stat_user_indexes). A backend flushes its counters when it exits,
// just after it leaves pg_stat_activity, so they are read until they stay the same for half a
// second. Each read is a transaction of its own, which sees the counters afresh
// (stats_fetch_consistency keeps them for a transaction at most).
func historyReads(b *testing.B, conn *pgx.Conn) (rows, entries int64) {
	b.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(time.Minute)
	for {
		var others int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(&others); err != nil {
			b.Fatal(err)
		}
		if others == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d sessions still connected to the database", others)
		}
		time.Sleep(100 * time.Millisecond)
	}
	read := func() (int64, int64) {
		var r, e int64
		err := conn.QueryRow(ctx, `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0),
			(SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = 'history')
			FROM pg_stat_user_tables WHERE relname = 'history'`).Scan(&r, &e)
		if err != nil {
			b.Fatal(err)
		}
		return r, e
	}
	rows, entries = read()
	for {
		time.Sleep(500 * time.Millisecond)
		r, e := read()
		if r == rows && e == entries {
			return rows, entries
		}
		if time.Now().After(deadline) {
			b.Fatal("history's counters still change a minute after the check")
		}
		rows, entries = r, e
	}
}

// logHistoryPlans logs, for each condition that reads HISTORY, how its plan reads it over the
// first chunk (warehouses 1..10): the plan's lines that name HISTORY or one of its indexes.
func logHistoryPlans(b *testing.B, conn *pgx.Conn) {
	b.Helper()
	for _, c := range tpcc.Conditions {
		sql := conditionSQL[c.ID]
		if !strings.Contains(sql, "FROM history") {
			continue
		}
		rows, err := conn.Query(context.Background(), "EXPLAIN "+sql, 1, 10)
		if err != nil {
			b.Fatalf("%s: %v", c.ID, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			b.Fatalf("%s: %v", c.ID, err)
		}
		var reads []string
		for _, l := range lines {
			if strings.Contains(l, " on history") || strings.Contains(l, "history_") {
				reads = append(reads, strings.TrimSpace(l))
			}
		}
		b.Logf("%s reads history by: %s", c.ID, strings.Join(reads, " | "))
	}
}
