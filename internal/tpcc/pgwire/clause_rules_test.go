package pgwire

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// The executor applies three of the clause rules inside its SQL, on the row the statement locks:
// the stock update (tpcc.StockUpdate.ApplyLine), the bad-credit C_DATA (tpcc.BadCreditData) and
// the customer picked by last name (tpcc.MiddleCustomer); Payment's H_DATA (tpcc.HistoryData) is
// built there too. These tests run the flavours' own statements on the local PostgreSQL over
// rows made for the edge cases and compare what the database wrote or chose with the core's pure
// functions, so that a rule cannot drift between the two. Each runs in one transaction that is
// rolled back.

// ruleDatabase is an empty database with the PostgreSQL schema and a connection inside a
// transaction on it; the transaction is rolled back when the test ends.
func ruleDatabase(t *testing.T) (context.Context, pgx.Tx) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	conn := connect(t, pgtestDatabase(t))
	for _, stmt := range Postgres.SchemaDDL(tpcc.TablesLogged) {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(context.Background()) })
	return ctx, tx
}

// insertRow inserts one row of table with the given columns; every other column gets a value of
// its type (0, an empty text, the epoch), as the statements under test do not read them.
func insertRow(t *testing.T, ctx context.Context, tx pgx.Tx, table tpcc.Table, set map[string]any) {
	t.Helper()
	names := table.ColumnNames()
	args := make([]any, len(names))
	marks := make([]string, len(names))
	for i, c := range table.Columns {
		marks[i] = fmt.Sprintf("$%d", i+1)
		v, ok := set[c.Name]
		if !ok {
			switch c.Type.Kind {
			case tpcc.KindInt, tpcc.KindDecimal:
				v = 0
			case tpcc.KindVarchar, tpcc.KindChar:
				v = ""
			case tpcc.KindTimestamp:
				v = time.Unix(0, 0).UTC()
			}
		}
		args[i] = v
		delete(set, c.Name)
	}
	if len(set) > 0 {
		t.Fatalf("%s has no columns %v", table.Name, set)
	}
	sql := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", table.Name, strings.Join(names, ", "), strings.Join(marks, ", "))
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("insert into %s: %v", table.Name, err)
	}
}

// S_QUANTITY, S_YTD, S_ORDER_CNT and S_REMOTE_CNT after New-Order's stock statement are
// tpcc.StockUpdate.ApplyLine's, for every quantity a stock row can hold (10..100) and every line
// quantity (1..10), local and remote; S_DIST_xx is the district's. The same holds for the
// statement that updates all of an order's lines at once.
func TestStockStatementFollowsApplyLine(t *testing.T) {
	ctx, tx := ruleDatabase(t)
	type stockCase struct {
		before  tpcc.StockUpdate
		ordered int
		remote  bool
	}
	var cases []stockCase
	for q := 10; q <= 100; q++ {
		for ordered := tpcc.MinOrderLineQuantity; ordered <= tpcc.MaxOrderLineQuantity; ordered++ {
			cases = append(cases, stockCase{tpcc.StockUpdate{Quantity: q, YTD: q * 3, OrderCount: q % 7, RemoteCount: q % 5}, ordered, (q+ordered)%2 == 0})
		}
	}
	for i, c := range cases {
		insertRow(t, ctx, tx, tpcc.StockTable, map[string]any{"s_i_id": i + 1, "s_w_id": 1, "s_quantity": c.before.Quantity,
			"s_ytd": c.before.YTD, "s_order_cnt": c.before.OrderCount, "s_remote_cnt": c.before.RemoteCount, "s_dist_04": fmt.Sprintf("dist %d", i)})
	}
	for _, f := range []*Flavour{Postgres, Cockroach} {
		s, err := newPgwireStatements(f, "")
		if err != nil {
			t.Fatal(err)
		}
		sp, err := tx.Begin(ctx) // a savepoint: each flavour starts from the rows as inserted
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			remote := 0
			if c.remote {
				remote = 1
			}
			var quantity int
			var data, dist string
			if err := sp.QueryRow(ctx, s.newOrderStock, 1, i+1, c.ordered, remote, 4).Scan(&quantity, &data, &dist); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var got tpcc.StockUpdate
			if err := sp.QueryRow(ctx, "SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = 1 AND s_i_id = $1", i+1).
				Scan(&got.Quantity, &got.YTD, &got.OrderCount, &got.RemoteCount); err != nil {
				t.Fatal(err)
			}
			want := c.before
			want.ApplyLine(c.ordered, c.remote)
			if got != want || quantity != want.Quantity || strings.TrimRight(dist, " ") != fmt.Sprintf("dist %d", i) {
				t.Errorf("%s: stock %+v ordered %d remote %t: the database wrote %+v (returned %d, %q), ApplyLine %+v",
					f, c.before, c.ordered, c.remote, got, quantity, dist, want)
			}
		}
		if err := sp.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d stock updates compared with tpcc.StockUpdate.ApplyLine", f, len(cases))

		// The same lines in one statement (newOrderStocks, the lines' rows distinct), given out
		// of order; the row of an item without stock comes back from neither.
		sp, err = tx.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := len(cases) + 1
		supplies, items, ordered, remotes := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		for k := range cases {
			i := len(cases) - 1 - k
			supplies[k], items[k], ordered[k] = 1, int32(i+1), int32(cases[i].ordered)
			if cases[i].remote {
				remotes[k] = 1
			}
		}
		supplies[n-1], items[n-1], ordered[n-1] = 1, int32(len(cases)+1), 1
		rows, err := sp.Query(ctx, s.newOrderStocks, supplies, items, ordered, remotes, 4)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		returned := map[int]int{}
		for rows.Next() {
			var w, item, quantity int
			var data, dist string
			if err := rows.Scan(&w, &item, &quantity, &data, &dist); err != nil {
				t.Fatal(err)
			}
			i := item - 1
			if w != 1 || i < 0 || i >= len(cases) || strings.TrimRight(dist, " ") != fmt.Sprintf("dist %d", i) {
				t.Errorf("%s: newOrderStocks returned stock %d/%d (%q)", f, w, item, dist)
				continue
			}
			returned[i] = quantity
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(returned) != len(cases) {
			t.Errorf("%s: newOrderStocks returned %d rows, want %d", f, len(returned), len(cases))
		}
		for i, c := range cases {
			var got tpcc.StockUpdate
			if err := sp.QueryRow(ctx, "SELECT s_quantity, s_ytd, s_order_cnt, s_remote_cnt FROM stock WHERE s_w_id = 1 AND s_i_id = $1", i+1).
				Scan(&got.Quantity, &got.YTD, &got.OrderCount, &got.RemoteCount); err != nil {
				t.Fatal(err)
			}
			want := c.before
			want.ApplyLine(c.ordered, c.remote)
			if got != want || returned[i] != want.Quantity {
				t.Errorf("%s: newOrderStocks: stock %+v ordered %d remote %t: the database wrote %+v (returned %d), ApplyLine %+v",
					f, c.before, c.ordered, c.remote, got, returned[i], want)
			}
		}
		if err := sp.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// A Payment's C_DATA is tpcc.BadCreditData's for a bad-credit customer — the payment in front of
// the old text, cut at 500 characters — and unchanged for a good one; its H_DATA is
// tpcc.HistoryData's. Local and remote customers, amounts from the smallest to the largest, old
// texts from empty to full.
func TestPaymentStatementFollowsBadCreditData(t *testing.T) {
	ctx, tx := ruleDatabase(t)
	insertRow(t, ctx, tx, tpcc.WarehouseTable, map[string]any{"w_id": 1, "w_name": "WNAMEONE"})
	insertRow(t, ctx, tx, tpcc.DistrictTable, map[string]any{"d_id": 2, "d_w_id": 1, "d_name": "DNAMETWO"})
	type paymentCase struct {
		in     tpcc.PaymentInput
		id     int
		credit string
		old    string
	}
	var cases []paymentCase
	homes := [][2]int{{1, 2}, {2, 5}, {3, 10}} // the customer's (warehouse, district): local, then remote
	amounts := []int64{tpcc.MinPaymentAmountCents, 101, 123405, 99999, tpcc.MaxPaymentAmountCents}
	olds := []string{"", "x", strings.Repeat("d", 470), strings.Repeat("e", 480), strings.Repeat("f", 499), strings.Repeat("g", tpcc.CustomerDataMax)}
	for _, old := range olds {
		for _, amount := range amounts {
			for k, home := range homes {
				for _, credit := range []string{tpcc.BadCredit, "GC"} {
					id := len(cases) + 1
					if k == 2 {
						id += 2000 // four-digit ids lengthen the prefix
					}
					cases = append(cases, paymentCase{in: tpcc.PaymentInput{WarehouseID: 1, DistrictID: 2, CustomerWarehouseID: home[0],
						CustomerDistrictID: home[1], Customer: tpcc.CustomerSelector{ID: id}, AmountCents: amount}, id: id, credit: credit, old: old})
				}
			}
		}
	}
	for _, c := range cases {
		insertRow(t, ctx, tx, tpcc.CustomerTable, map[string]any{"c_id": c.id, "c_d_id": c.in.CustomerDistrictID,
			"c_w_id": c.in.CustomerWarehouseID, "c_credit": c.credit, "c_data": c.old, "c_last": "LAST"})
	}
	for _, f := range []*Flavour{Postgres, Cockroach} {
		s, err := newPgwireStatements(f, "")
		if err != nil {
			t.Fatal(err)
		}
		sp, err := tx.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			in := c.in
			if err := in.Validate(); err != nil {
				t.Fatal(err)
			}
			rows, err := sp.Query(ctx, s.paymentCustomerByID, in.WarehouseID, in.DistrictID, in.CustomerWarehouseID,
				in.CustomerDistrictID, cents(in.AmountCents), in.Customer.ID)
			if err != nil {
				t.Fatal(err)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				t.Fatalf("%s: payment of customer %d: %v", f, c.id, err)
			}
			var data, history string
			if err := sp.QueryRow(ctx, "SELECT c_data FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3",
				in.CustomerWarehouseID, in.CustomerDistrictID, c.id).Scan(&data); err != nil {
				t.Fatal(err)
			}
			if err := sp.QueryRow(ctx, "SELECT h_data FROM history WHERE h_c_w_id = $1 AND h_c_d_id = $2 AND h_c_id = $3",
				in.CustomerWarehouseID, in.CustomerDistrictID, c.id).Scan(&history); err != nil {
				t.Fatal(err)
			}
			want := c.old
			if c.credit == tpcc.BadCredit {
				want = tpcc.BadCreditData(&in, c.id, c.old)
			}
			if data != want {
				t.Errorf("%s: customer %d (%s, %d old characters) paid %d cents: the database wrote C_DATA %q…(%d), BadCreditData %q…(%d)",
					f, c.id, c.credit, len(c.old), in.AmountCents, head(data), len(data), head(want), len(want))
			}
			if want := tpcc.HistoryData("WNAMEONE", "DNAMETWO"); history != want {
				t.Errorf("%s: H_DATA %q, HistoryData %q", f, history, want)
			}
		}
		if err := sp.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d payments compared with tpcc.BadCreditData and tpcc.HistoryData", f, len(cases))
	}
}

func head(s string) string { return s[:min(len(s), 40)] }

// The customer Payment and Order-Status pick by last name is tpcc.MiddleCustomer's among the
// customers of that name ordered by C_FIRST (C_ID between equal first names), for one to nine
// customers of a name.
func TestByLastNameStatementsFollowMiddleCustomer(t *testing.T) {
	ctx, tx := ruleDatabase(t)
	insertRow(t, ctx, tx, tpcc.WarehouseTable, map[string]any{"w_id": 1, "w_name": "W"})
	insertRow(t, ctx, tx, tpcc.DistrictTable, map[string]any{"d_id": 3, "d_w_id": 1, "d_name": "D"})
	firsts := []string{"MARY", "CAROL", "MARY", "ANNA", "ZOE", "CAROL", "BETH", "ANNA", "MARY"}
	want := map[string]int{}
	id := 0
	for n := 1; n <= len(firsts); n++ {
		last := fmt.Sprintf("NAME%d", n)
		type customer struct {
			id    int
			first string
		}
		var named []customer
		for i := range n {
			id += 7 // ids not in C_FIRST order, and not contiguous
			c := customer{id: 3000 - id, first: firsts[i]}
			named = append(named, c)
			insertRow(t, ctx, tx, tpcc.CustomerTable, map[string]any{"c_id": c.id, "c_d_id": 3, "c_w_id": 1,
				"c_first": c.first, "c_last": last, "c_credit": "GC"})
		}
		// A customer of the name in another district, which the pick must not see.
		insertRow(t, ctx, tx, tpcc.CustomerTable, map[string]any{"c_id": 1, "c_d_id": n%10 + 4, "c_w_id": 1,
			"c_first": "AAAA", "c_last": last, "c_credit": "GC"})
		slices.SortFunc(named, func(a, b customer) int {
			if c := strings.Compare(a.first, b.first); c != 0 {
				return c
			}
			return a.id - b.id
		})
		ids := make([]int, len(named))
		for i, c := range named {
			ids[i] = c.id
		}
		w, ok := tpcc.MiddleCustomer(ids)
		if !ok {
			t.Fatal("no customer")
		}
		want[last] = w
	}
	for _, f := range []*Flavour{Postgres, Cockroach} {
		s, err := newPgwireStatements(f, "")
		if err != nil {
			t.Fatal(err)
		}
		for last, w := range want {
			status := firstColumn(t, ctx, tx, s.orderStatusByName, 1, 3, last)
			sp, err := tx.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			paid := firstColumn(t, ctx, sp, s.paymentCustomerByName, 1, 3, 1, 3, cents(100), last)
			if err := sp.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if status != w || paid != w {
				t.Errorf("%s: %s: Order-Status picks customer %d, Payment %d; MiddleCustomer %d", f, last, status, paid, w)
			}
		}
		t.Logf("%s: %d selections by last name compared with tpcc.MiddleCustomer", f, len(want))
	}
}

// firstColumn runs a statement that returns rows whose first column is a C_ID, and returns the
// C_ID of its first row (0 when none).
func firstColumn(t *testing.T, ctx context.Context, tx pgx.Tx, sql string, args ...any) int {
	t.Helper()
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	id := 0
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		if id == 0 {
			id = int(vals[0].(int32))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%v\n%s", err, sql)
	}
	return id
}
