package pgwire

import (
	"context"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// TestCheckReadsHistoryByItsIndexes: a finished load has the HISTORY indexes, every condition
// that reads HISTORY is planned over a chunk through one of them, and a dataset loaded without
// them (dropped here) gets them back from the check, which then passes.
func TestCheckReadsHistoryByItsIndexes(t *testing.T) {
	url := pgtestDatabase(t)
	loadForTest(t, url, tpcc.LoadOptions{Warehouses: 2, Finish: true, Vacuum: true})
	c := connect(t, url)
	names := make([]any, len(tpcc.HistoryIndexes))
	for i, ix := range tpcc.HistoryIndexes {
		names[i] = ix.Name
	}
	const count = "SELECT count(*) FROM pg_indexes WHERE tablename = 'history' AND indexname IN ($1, $2)"
	if n := queryInt(t, c, count, names...); n != 2 {
		t.Fatalf("%d of the HISTORY indexes after the load, want 2", n)
	}

	ctx := context.Background()
	planned := 0
	for _, cond := range tpcc.Conditions {
		sql := conditionSQL[cond.ID]
		if !strings.Contains(sql, "FROM history") {
			continue
		}
		planned++
		rows, err := c.Query(ctx, "EXPLAIN "+sql, 1, 1)
		if err != nil {
			t.Fatalf("%s: %v", cond.ID, err)
		}
		var plan []string
		for rows.Next() {
			var l string
			if err := rows.Scan(&l); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, l)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "Seq Scan on history") || !strings.Contains(text, "history_") {
			t.Errorf("%s reads HISTORY of warehouse 1 of 2 without its indexes:\n%s", cond.ID, text)
		}
	}
	if planned != 5 {
		t.Errorf("%d conditions read HISTORY, want 5 (cardinality, 3.3.2.8, 9, 10, 12)", planned)
	}

	for _, ix := range tpcc.HistoryIndexes {
		if _, err := c.Exec(ctx, "DROP INDEX "+ix.Name); err != nil {
			t.Fatal(err)
		}
	}
	res := checkForTest(t, url, tpcc.CheckOptions{Warehouses: 2, LoadTime: true, ChunkSize: 1})
	var out strings.Builder
	if !tpcc.WriteCheckReport(&out, res) {
		t.Errorf("check of a dataset without the HISTORY indexes failed:\n%s", out.String())
	}
	if n := queryInt(t, c, count, names...); n != 2 {
		t.Errorf("%d of the HISTORY indexes after the check, want the 2 it creates", n)
	}
}
