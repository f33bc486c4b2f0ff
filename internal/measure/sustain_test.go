package measure

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// The windows cover the measured interval only: not the ramp-up, and not the interval the clients
// seal after its end (a real client does: transactions that complete after the end), which would
// otherwise be judged as a window of its own. A 3-minute phase at 10-s intervals after a 10-s
// ramp-up is intervals 1..18: three windows of a minute, whatever the clients send around them.
func TestSustainWindowsCoverTheMeasuredIntervalOnly(t *testing.T) {
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Workload: benchv1.WorkloadSpec{Warehouses: 8, Duration: &metav1.Duration{Duration: time.Minute}}}}
	run.Spec.Workload.Interval = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.Workload.RampUp = &metav1.Duration{Duration: 10 * time.Second}
	run.Spec.Sustain = &benchv1.SustainSpec{Percent: 70, Duration: metav1.Duration{Duration: 3 * time.Minute},
		Window: &metav1.Duration{Duration: time.Minute}}
	w := NewSustainWatch(run, 6, sla.Criteria{MinEfficiencyPercent: 85})
	if w.From != 1 || w.To != 19 || w.Size != 6 {
		t.Fatalf("watch from %d to %d, %d per window; want 1, 19, 6", w.From, w.To, w.Size)
	}
	for i := 0; i <= 19; i++ { // the ramp-up's interval 0 and the one after the end, 19
		if err := w.add(snapshot.MergedInterval{Index: i, Seconds: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(w.Windows) != 3 {
		t.Fatalf("%d windows, want 3", len(w.Windows))
	}
	for i, win := range w.Windows {
		if win.From != 1+6*i || win.Seconds != 60 {
			t.Errorf("window %d from interval %d, %gs; want from %d, 60s", i, win.From, win.Seconds, 1+6*i)
		}
	}
	// A watch saved before To existed (0) takes every interval after the ramp-up, as it did.
	old := &SustainWatch{From: 1, Size: 6, LengthSeconds: 10, Active: 6}
	for i := 0; i <= 19; i++ {
		if err := old.add(snapshot.MergedInterval{Index: i, Seconds: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := old.Close(); err != nil || len(old.Windows) != 4 {
		t.Errorf("a saved watch without To: %d windows (%v), want 4", len(old.Windows), err)
	}
}
