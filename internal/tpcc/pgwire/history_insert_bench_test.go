package pgwire

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// BenchmarkHistoryInsert measures what the HISTORY indexes (tpcc.HistoryIndexes) add to
// Payment's HISTORY insert: single-row inserts of random warehouses, districts and customers
// into a HISTORY of 1.2 M rows (40 warehouses' worth), all in one transaction so that the commit,
// which a Payment pays once whatever the indexes, is left out; with and without the indexes. It
// reports the WAL bytes each insert writes besides the time.
// Run: hack/with-pg-sync.sh bash -c 'go test -run ^$ -bench BenchmarkHistoryInsert -benchtime 20000x ./internal/tpcc/pgwire'
func BenchmarkHistoryInsert(b *testing.B) {
	url := pgtest.Database(b, pgtest.URL(b), "tpcc_histbench")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range Postgres.SchemaDDL(tpcc.TablesLogged) {
		if _, err := conn.Exec(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
		SELECT c, d, w, d, w, localtimestamp, 10.00, 'abcdefghijkl    mnopqrst'
		FROM generate_series(1, 40) w, generate_series(1, 10) d, generate_series(1, 3000) c`); err != nil {
		b.Fatal(err)
	}
	for _, variant := range []string{"index", "no-index"} {
		b.Run(variant, func(b *testing.B) {
			for _, ix := range tpcc.HistoryIndexes {
				sql := indexDDL(ix)
				if variant == "no-index" {
					sql = "DROP INDEX IF EXISTS " + ix.Name
				}
				if _, err := conn.Exec(ctx, sql); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := conn.Exec(ctx, "VACUUM ANALYZE history"); err != nil {
				b.Fatal(err)
			}
			tx, err := conn.Begin(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer tx.Rollback(ctx) //nolint:errcheck
			var walStart string
			if err := tx.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&walStart); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			for range b.N {
				w, d, c := 1+rng.IntN(40), 1+rng.IntN(10), 1+rng.IntN(3000)
				if _, err := tx.Exec(ctx, `INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
					VALUES ($1, $2, $3, $2, $3, localtimestamp, 12.34, 'abcdefghijkl    mnopqrst')`, c, d, w); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			var wal float64
			if err := tx.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn() - $1::pg_lsn", walStart).Scan(&wal); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(wal/float64(b.N), "WAL-bytes/insert")
		})
	}
}
