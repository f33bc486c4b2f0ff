package tpcc

import (
	"context"
	"reflect"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestFinishTracker(t *testing.T) {
	var none *FinishTracker
	none.Add(3)
	none.Begin("ANALYZE stock")()
	if none.Progress() != nil || FinishTrackerFrom(context.Background()) != nil {
		t.Fatal("a nil tracker reports progress")
	}

	tr := &FinishTracker{}
	if FinishTrackerFrom(WithFinishTracker(context.Background(), tr)) != tr {
		t.Fatal("the context does not carry the tracker")
	}
	tr.Add(3)
	endA := tr.Begin("CREATE INDEX a\n    ON t (x)")
	endB := tr.Begin("ANALYZE stock")
	step := func(want snapshot.FinishProgress) {
		t.Helper()
		if got := tr.Progress(); !reflect.DeepEqual(*got, want) {
			t.Errorf("got %+v, want %+v", *got, want)
		}
	}
	step(snapshot.FinishProgress{Done: 0, Total: 3, Running: []string{"CREATE INDEX a ON t (x)", "ANALYZE stock"}})
	endA()
	endA() // once only
	step(snapshot.FinishProgress{Done: 1, Total: 3, Running: []string{"ANALYZE stock"}})
	endB()
	endC := tr.Begin("VACUUM stock")
	endD := tr.Begin("CHECKPOINT") // beyond the announced: the total grows
	step(snapshot.FinishProgress{Done: 2, Total: 4, Running: []string{"VACUUM stock", "CHECKPOINT"}})
	endD()
	endC()
	step(snapshot.FinishProgress{Done: 4, Total: 4})
}
