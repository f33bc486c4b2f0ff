package snapshot

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// ledgerRun is a fakeRun whose snapshot carries a ledger of three districts.
func ledgerRun(t *testing.T) *fakeRun {
	run := newFakeRun(t)
	run.snapshot.Ledger = []LedgerDistrict{{WarehouseID: 1, DistrictID: 1, Acknowledged: 5}, {WarehouseID: 1, DistrictID: 2, Acknowledged: 7, Unknown: 1},
		{WarehouseID: 1, DistrictID: 3, Acknowledged: 2}}
	return run
}

// TestHandlerServesTheLedgerOnlyWhenAsked: ledger=1 (or true) serves it, no parameter or ledger=0
// leaves it out and serves its totals, on the plain and the incremental read; anything else is a 400. The snapshot the
// run holds keeps its ledger either way.
func TestHandlerServesTheLedgerOnlyWhenAsked(t *testing.T) {
	run := ledgerRun(t)
	server := httptest.NewServer(NewHandler(run.control()))
	defer server.Close()
	for _, tc := range []struct {
		query      string
		status     int
		wantLedger bool
	}{
		{"", http.StatusOK, false},
		{"?ledger=1", http.StatusOK, true},
		{"?ledger=true", http.StatusOK, true},
		{"?ledger=0", http.StatusOK, false},
		{"?ledger=false", http.StatusOK, false},
		{"?intervalsAfter=-1", http.StatusOK, false},
		{"?intervalsAfter=-1&ledger=1", http.StatusOK, true},
		{"?ledger=1&intervalsAfter=4", http.StatusOK, true},
		{"?ledger=yes", http.StatusBadRequest, false},
		{"?ledger=", http.StatusBadRequest, false},
		{"?ledger=1&ledger=1", http.StatusBadRequest, false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			resp, err := server.Client().Get(server.URL + PathSnapshot + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status != http.StatusOK {
				if !strings.Contains(string(body), QueryLedger+": want 1") {
					t.Errorf("error %s does not say what the parameter wants", body)
				}
				return
			}
			s, err := Parse(body)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s.Ledger); (got == 3) != tc.wantLedger || (got != 0 && got != 3) {
				t.Errorf("%d ledger districts served, want the ledger %v", got, tc.wantLedger)
			}
			if tc.wantLedger && s.Ledger[1] != (LedgerDistrict{WarehouseID: 1, DistrictID: 2, Acknowledged: 7, Unknown: 1}) {
				t.Errorf("ledger %+v", s.Ledger)
			}
			// Without the list, its totals; with it, the list alone. The reader's count is the same.
			if tc.wantLedger != (s.LedgerTotals == nil) {
				t.Errorf("ledger %v, totals %+v: want the totals exactly when the list is left out", tc.wantLedger, s.LedgerTotals)
			}
			if !tc.wantLedger && *s.LedgerTotals != (LedgerTotals{Districts: 3, Acknowledged: 14, Unknown: 1}) {
				t.Errorf("totals %+v, want 3 districts, 14 acknowledged, 1 unknown", *s.LedgerTotals)
			}
			if s.CommitsUnknown() != 1 {
				t.Errorf("CommitsUnknown %d, want 1", s.CommitsUnknown())
			}
		})
	}
	if len(run.snapshot.Ledger) != 3 {
		t.Errorf("the run's own ledger was changed: %+v", run.snapshot.Ledger)
	}
}

// TestQueryPath: the client asks for the ledger only when the query says so.
func TestQueryPath(t *testing.T) {
	for _, tc := range []struct {
		q    Query
		want string
	}{
		{Query{IntervalsAfter: -1}, "/v1/snapshot?intervalsAfter=-1"},
		{Query{IntervalsAfter: 41}, "/v1/snapshot?intervalsAfter=41"},
		{Query{IntervalsAfter: -1, Ledger: true}, "/v1/snapshot?intervalsAfter=-1&ledger=1"},
		{Query{IntervalsAfter: 7, Ledger: true}, "/v1/snapshot?intervalsAfter=7&ledger=1"},
	} {
		if got := tc.q.Path(); got != tc.want {
			t.Errorf("%+v: path %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestFetchQueryLedger: the client's reads against a current pod (the ledger as asked) and against
// a pod that predates the parameter and always sends it (its ledger is read whatever was asked).
func TestFetchQueryLedger(t *testing.T) {
	run := ledgerRun(t)
	current := httptest.NewServer(NewHandler(run.control()))
	defer current.Close()
	var asked []string
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.RawQuery)
		_ = json.NewEncoder(w).Encode(run.snapshot) // the whole snapshot, whatever the query
	}))
	defer old.Close()
	for _, tc := range []struct {
		name       string
		url        string
		ledger     bool
		wantLedger bool
	}{
		{"current pod, no ledger asked", current.URL, false, false},
		{"current pod, ledger asked", current.URL, true, true},
		{"old pod, no ledger asked", old.URL, false, true},
		{"old pod, ledger asked", old.URL, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FetchQuery(context.Background(), nil, tc.url, Query{IntervalsAfter: -1, Ledger: tc.ledger})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(s.Ledger) == 3; got != tc.wantLedger {
				t.Errorf("ledger of %d districts, want the ledger %v", len(s.Ledger), tc.wantLedger)
			}
		})
	}
	if len(asked) != 2 || asked[0] != "intervalsAfter=-1" || asked[1] != "intervalsAfter=-1&ledger=1" {
		t.Errorf("the old pod was asked %q", asked)
	}
}
