package pgwire

import (
	"bytes"
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

func checkForTest(t *testing.T, url string, o tpcc.CheckOptions) []tpcc.CheckResult {
	t.Helper()
	o.Driver, o.URL = Postgres, url
	if o.Threads == 0 {
		o.Threads = 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return checkBothWays(t, ctx, o)
}

func resultByID(t *testing.T, res []tpcc.CheckResult, id string) tpcc.CheckResult {
	t.Helper()
	for _, r := range res {
		if r.Condition.ID == id {
			return r
		}
	}
	t.Fatalf("no result for %s", id)
	return tpcc.CheckResult{}
}

func TestCheckAfterLoadAndAfterCorruption(t *testing.T) {
	url := pgtestDatabase(t)
	loadForTest(t, url, tpcc.LoadOptions{Warehouses: 2, Finish: true})

	res := checkForTest(t, url, tpcc.CheckOptions{Warehouses: 2, LoadTime: true, ChunkSize: 1})
	var out bytes.Buffer
	if !tpcc.WriteCheckReport(&out, res) {
		t.Fatalf("check failed right after the load:\n%s", out.String())
	}
	if len(res) != 13 || strings.Count(out.String(), "PASS") != 13 {
		t.Errorf("want 13 PASS lines (cardinality + 3.3.2.1-12):\n%s", out.String())
	}
	t.Logf("report after load:\n%s", out.String())

	without := checkForTest(t, url, tpcc.CheckOptions{Warehouses: 2})
	if r := resultByID(t, without, "3.3.2.11"); !r.Skipped {
		t.Errorf("3.3.2.11 ran without --load-time: %+v", r)
	}

	c := connect(t, url)
	corruptions := []struct {
		name, corrupt, repair string
		failing               []string
		detail                string
	}{
		{"bump one d_ytd", "UPDATE district SET d_ytd = d_ytd + 0.01 WHERE d_w_id = 2 AND d_id = 7",
			"UPDATE district SET d_ytd = d_ytd - 0.01 WHERE d_w_id = 2 AND d_id = 7",
			[]string{"3.3.2.1", "3.3.2.9"}, "d_w_id=2 d_id=7 d_ytd=30000.01"},
		{"deliver an order without its new_order row", "UPDATE orders SET o_carrier_id = 3 WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 2500",
			"UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 4 AND o_id = 2500",
			[]string{"3.3.2.5", "3.3.2.7"}, "o_w_id=1 o_d_id=4 o_id=2500"},
		{"a customer balance", "UPDATE customer SET c_balance = -9.99 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 3",
			"UPDATE customer SET c_balance = -10.00 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 3",
			[]string{"3.3.2.10", "3.3.2.12"}, "c_w_id=1 c_d_id=2 c_id=3 c_balance=-9.99"},
		// Last: not repaired.
		{"lose an order line", "DELETE FROM order_line WHERE ol_w_id = 2 AND ol_d_id = 1 AND ol_o_id = 10 AND ol_number = 1",
			"", []string{"3.3.2.4", "3.3.2.6"}, "o_w_id=2 o_d_id=1 o_id=10"},
	}
	for _, cr := range corruptions {
		t.Run(cr.name, func(t *testing.T) {
			if _, err := c.Exec(context.Background(), cr.corrupt); err != nil {
				t.Fatal(err)
			}
			res := checkForTest(t, url, tpcc.CheckOptions{Warehouses: 2, LoadTime: true})
			var out bytes.Buffer
			if tpcc.WriteCheckReport(&out, res) {
				t.Fatalf("check passed after %s:\n%s", cr.name, out.String())
			}
			for _, id := range cr.failing {
				r := resultByID(t, res, id)
				if r.Pass {
					t.Errorf("%s passed after %s", id, cr.name)
				}
			}
			if !strings.Contains(out.String(), cr.detail) {
				t.Errorf("report does not name %q:\n%s", cr.detail, out.String())
			}
			failures := strings.Count(out.String(), " FAIL ")
			if failures != len(cr.failing) {
				t.Errorf("%d conditions failed, want exactly %v:\n%s", failures, cr.failing, out.String())
			}
			if cr.repair != "" {
				if _, err := c.Exec(context.Background(), cr.repair); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestCheckRefusesUnloadedRange(t *testing.T) {
	url := pgtestDatabase(t)
	loadForTest(t, url, tpcc.LoadOptions{Warehouses: 2, From: 1, To: 1})
	_, err := tpcc.Check(context.Background(), tpcc.CheckOptions{Driver: Postgres, URL: url, Warehouses: 2, Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "warehouses 2 are not loaded") {
		t.Errorf("check of 1..2 with only 1 loaded: %v", err)
	}
	_, err = tpcc.Check(context.Background(), tpcc.CheckOptions{Driver: Postgres, URL: url, Warehouses: 2, From: 1, To: 1, Threads: 1})
	if err != nil {
		t.Errorf("check of the loaded range 1..1: %v", err)
	}
}

func TestNumericText(t *testing.T) {
	cases := []struct {
		n    pgtype.Numeric
		want string
	}{
		{pgtype.Numeric{Int: big.NewInt(3000001), Exp: -2, Valid: true}, "30000.01"},
		{pgtype.Numeric{Int: big.NewInt(-999), Exp: -2, Valid: true}, "-9.99"},
		{pgtype.Numeric{Int: big.NewInt(5), Exp: -4, Valid: true}, "0.0005"},
		{pgtype.Numeric{Int: big.NewInt(12), Exp: 2, Valid: true}, "1200"},
		{pgtype.Numeric{}, "NULL"},
	}
	for _, tc := range cases {
		if got := numericText(tc.n); got != tc.want {
			t.Errorf("numericText(%v e%d) = %q, want %q", tc.n.Int, tc.n.Exp, got, tc.want)
		}
	}
}
