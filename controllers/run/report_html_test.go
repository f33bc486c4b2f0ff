package run

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// TestReportHTMLWithinBudget: the run's report.html keeps its time-series charts when they fit,
// drops them (saying so) when not, and is left out when even that would not fit.
func TestReportHTMLWithinBudget(t *testing.T) {
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"}, Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded,
		Steps: []benchv1.StepResult{{Index: 0, ActiveWarehouses: 4, TpmC: 50, Efficiency: 97, Compliant: true, StartTime: &metav1.Time{Time: start}}}}}
	st := measure.StepSeries{Version: measure.SeriesVersion, Origin: start, LengthSeconds: 10}
	st.Series = snapshot.CompactSeries{Start: start, LengthSeconds: 10, Index: []int{0, 1, 2},
		Types: map[snapshot.Transaction]*snapshot.CompactColumns{snapshot.NewOrder: {Completed: []int64{9, 9, 9}, Errors: []int64{0, 0, 0},
			P50: []int64{1000, 1000, 1000}, P90: []int64{2000, 2500, 2000}, P99: []int64{4000, 4000, 4000}, Max: []int64{5000, 5000, 5000}}}}
	series, err := measure.GzipJSON(measure.SeriesReport{SchemaVersion: measure.SeriesVersion, Steps: []measure.IndexedSeries{{Index: 0, StepSeries: st}}})
	if err != nil {
		t.Fatal(err)
	}
	result := benchv1.Result{Message: "4 active warehouses compliant"}
	full := reportHTML(run, result, series, kube.ConfigMapBudget)
	if !strings.Contains(full, "Step 0: p90 response time over time") {
		t.Fatal("the page with room lacks the time series")
	}
	without := reportHTML(run, result, series, len(full)-1)
	if without == "" || strings.Contains(without, "Step 0: p90 response time over time") || !strings.Contains(without, "The time-series charts are left out") {
		t.Errorf("the page over its budget keeps its time series or does not say so")
	}
	if got := reportHTML(run, result, series, 100); got != "" {
		t.Errorf("a page of %d bytes in a budget of 100", len(got))
	}
	if got := reportHTML(run, result, nil, kube.ConfigMapBudget); !strings.Contains(got, "series.json.gz is too large for the report ConfigMap") {
		t.Error("the page without series.json.gz does not say why")
	}
}
