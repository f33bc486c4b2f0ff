package run

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// reportOf is a report of steps steps of pods client pods each, with histograms of histogramBytes
// per transaction and a series of seriesBytes.
func reportOf(steps, pods, histogramBytes int) reportDoc {
	rep := reportDoc{SchemaVersion: reportVersion, Run: "big", Namespace: "bench"}
	for i := range steps {
		s := benchv1.StepResult{Index: int32(i), ActiveWarehouses: 18000, Pods: int32(pods), TpmC: 200000, Efficiency: 97,
			Telemetry: &benchv1.StepTelemetry{Intervals: 60}, Placement: &benchv1.StepPlacement{Primary: "big-db-1"}}
		for p := range pods {
			name := fmt.Sprintf("big-step-%d-%d-abcde", i, p)
			s.Telemetry.Pods = append(s.Telemetry.Pods, benchv1.PodUsage{Name: name, Role: "Client",
				PeakCPU: resource.MustParse("3500m"), PeakMemory: resource.MustParse("1536Mi")})
			s.Placement.Pods = append(s.Placement.Pods, benchv1.PodPlacementRecord{Name: name, Role: "Client", Node: fmt.Sprintf("node-%d", p%3)})
		}
		d := stepData{Step: s, Histograms: map[snapshot.Transaction]string{},
			Summary: snapshot.Summary{TpmC: 200000, Transactions: map[snapshot.Transaction]snapshot.TransactionSummary{}, MixPercent: map[snapshot.Transaction]float64{}}}
		for _, tx := range []snapshot.Transaction{snapshot.NewOrder, snapshot.Payment, snapshot.OrderStatus, snapshot.Delivery, snapshot.StockLevel} {
			d.Histograms[tx] = strings.Repeat("H", histogramBytes)
			d.Summary.Transactions[tx] = snapshot.TransactionSummary{Completed: 123456789, Commits: 123456789, P50Micros: 12345, P90Micros: 123456, P99Micros: 1234567}
			d.Summary.MixPercent[tx] = 44.41234
		}
		rep.Steps = append(rep.Steps, d)
	}
	return rep
}

func TestFitReport(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "big"}}
	for _, c := range []struct {
		name                 string
		steps, pods, hist    int
		series               int
		want                 reportFit
		wantStepDetail, fail bool
	}{
		{"a small run keeps everything", 6, 1, 2000, 50_000, fitWhole, false, false},
		{"series not gathered (nil): never the whole layout", 6, 1, 2000, -5_000_000, fitNoSeries, false, false},
		{"a long series goes to the steps' ConfigMaps", 6, 1, 2000, 1_000_000, fitNoSeries, false, false},
		// The study's shape: 36 pods, 25 steps and more.
		{"36 pods × 40 steps", 40, 36, 4000, 200_000, fitNoPods, true, false},
		{"256 pods × 100 steps", 100, 256, 4000, 2_000_000, fitNoPods, true, false},
		{"summaries too: 600 steps", 600, 4, 100, 0, fitStepsOnly, true, false},
		{"beyond any layout", 5000, 1, 0, 0, 0, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := reportOf(c.steps, c.pods, c.hist)
			series, seriesBytes := make([]byte, max(c.series, 0)), c.series
			if c.series < 0 { // readSeries stopped: no series, its compressed size so far
				series, seriesBytes = nil, -c.series
			}
			got, err := fitReport(run, rep, "# report\n", "# report\n", series, seriesBytes, kube.ConfigMapBudget)
			if c.fail {
				if err == nil || !strings.Contains(err.Error(), "over the") {
					t.Fatalf("fitReport of %d steps: err %v, want one naming the size", c.steps, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			size := len(got.Data["report.json"]) + len(got.Data["report.md"]) + len(got.Binary[seriesKey])
			if got.Fit != c.want || size > kube.ConfigMapBudget {
				t.Fatalf("fit %d, %d bytes: want fit %d within %d", got.Fit, size, c.want, kube.ConfigMapBudget)
			}
			var doc reportDoc
			if err := json.Unmarshal([]byte(got.Data["report.json"]), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Steps) != c.steps || (doc.StepDetail != "") != c.wantStepDetail || (got.Binary == nil) != (c.want != fitWhole) {
				t.Errorf("%d steps, stepDetail %q, series key %v", len(doc.Steps), doc.StepDetail, got.Binary != nil)
			}
			if c.want >= fitNoSeries && !strings.Contains(doc.Series, fmt.Sprintf("(%d bytes gzipped)", max(c.series, -c.series))) {
				t.Errorf("series %q: want the gzipped size", doc.Series)
			}
			if c.want >= fitNoPods {
				s := doc.Steps[len(doc.Steps)-1].Step
				if s.Telemetry == nil || len(s.Telemetry.Pods) != 0 || s.Placement == nil || s.Placement.Primary != "big-db-1" || s.TpmC != 200000 {
					t.Errorf("step kept %+v: want its record without the per-pod lists", s)
				}
			}
			// The layout never changes the caller's report.
			if s := rep.Steps[0]; len(s.Step.Telemetry.Pods) != c.pods || len(s.Histograms) != 5 {
				t.Error("fitReport changed the report it was given")
			}
		})
	}
}

// report.md rendered with every step's per-pod lists can outgrow the budget on its own (100 steps
// × 256 pods: 1.4 MB): the layouts that leave the lists to the steps' ConfigMaps take report.md
// rendered from the steps' summaries, and the report fits.
func TestFitReportTakesTheSummariesMarkdown(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "big"}}
	detailed, summaries := strings.Repeat("| pod |\n", kube.ConfigMapBudget/8+1), "# summaries\n"
	got, err := fitReport(run, reportOf(10, 4, 100), detailed, summaries, nil, 0, kube.ConfigMapBudget)
	if err != nil {
		t.Fatal(err)
	}
	if got.Fit != fitNoPods || got.Data["report.md"] != summaries {
		t.Errorf("fit %d, report.md %d bytes: want fit %d with the summaries' report.md", got.Fit, len(got.Data["report.md"]), fitNoPods)
	}
	got, err = fitReport(run, reportOf(10, 4, 100), "# detailed\n", summaries, nil, 0, kube.ConfigMapBudget)
	if err != nil || got.Fit != fitNoSeries || got.Data["report.md"] != "# detailed\n" {
		t.Errorf("fit %d, report.md %q, %v: a report that fits keeps the per-pod report.md", got.Fit, got.Data["report.md"], err)
	}
}
