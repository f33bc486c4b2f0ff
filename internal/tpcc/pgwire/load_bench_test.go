package pgwire

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/tpcctest"
)

// binarySource feeds generated rows to pgx.CopyFrom (binary COPY), converting each value to the
// Go type pgx encodes: the generic alternative to the binary stream Load encodes itself.
type binarySource struct {
	src  tpcc.RowSource
	t    tpcc.Table
	row  []tpcc.Value
	vals []any
	now  time.Time
}

func (s *binarySource) Next() bool { return s.src.Next(s.row) }
func (s *binarySource) Err() error { return nil }
func (s *binarySource) Values() ([]any, error) {
	for i, v := range s.row {
		switch v.Kind {
		case tpcc.ValueInt:
			s.vals[i] = int32(v.Int)
		case tpcc.ValueDecimal:
			s.vals[i] = pgtype.Numeric{Int: big.NewInt(v.Int), Exp: int32(-s.t.Columns[i].Type.Scale), Valid: true}
		case tpcc.ValueText:
			s.vals[i] = string(v.Text)
		case tpcc.ValueTimestamp:
			s.vals[i] = s.now
		case tpcc.ValueNull:
			s.vals[i] = nil
		}
	}
	return s.vals, nil
}

// BenchmarkCopyWarehouse loads one warehouse per iteration (all eight tables, one transaction, no
// keys) three ways: binary COPY encoded by the generator and streamed by pgconn (what Load does for
// PostgreSQL), text COPY streamed the same way (what it does for CockroachDB), and pgx's generic
// binary CopyFrom.
// Run: TPCC_PG_URL=$(hack/pg-sync.sh url) go test -run XXX -bench CopyWarehouse -benchtime 5x ./internal/tpcc
func BenchmarkCopyWarehouse(b *testing.B) {
	url := pgtestDatabase(b)
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
	gen := &tpcc.Generator{Seed: 1, Constants: tpcc.ConstantsForSeed(1), Now: tpcctest.Now}
	truncate := func() {
		names := make([]string, len(tpcc.WarehouseTables))
		for i, t := range tpcc.WarehouseTables {
			names[i] = t.Name
		}
		if _, err := conn.Exec(ctx, "TRUNCATE "+strings.Join(names, ", ")); err != nil {
			b.Fatal(err)
		}
	}
	load := map[string]func(tx pgx.Tx, t tpcc.Table) error{
		"binary-pgconn": func(tx pgx.Tx, t tpcc.Table) error {
			r := NewCopyReaderFormat(tpcctest.Source(gen, t, 1), gen.Now, CopyBinary)
			_, err := tx.Conn().PgConn().CopyFrom(ctx, r, CopyStatementFormat(t, CopyBinary))
			return err
		},
		"text-pgconn": func(tx pgx.Tx, t tpcc.Table) error {
			_, err := tx.Conn().PgConn().CopyFrom(ctx, NewCopyReaderFormat(tpcctest.Source(gen, t, 1), gen.Now, CopyText), CopyStatementFormat(t, CopyText))
			return err
		},
		"binary-pgx": func(tx pgx.Tx, t tpcc.Table) error {
			src := &binarySource{src: tpcctest.Source(gen, t, 1), t: t, row: make([]tpcc.Value, len(t.Columns)), vals: make([]any, len(t.Columns)), now: gen.Now}
			_, err := tx.CopyFrom(ctx, pgx.Identifier{t.Name}, t.ColumnNames(), src)
			return err
		},
	}
	for _, name := range []string{"binary-pgconn", "text-pgconn", "binary-pgx"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				truncate()
				b.StartTimer()
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					for _, t := range tpcc.WarehouseTables {
						if err := load[name](tx, t); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
