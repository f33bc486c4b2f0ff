package resultsdb

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
)

func TestBackoffDoublesUpToItsTop(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		n    int32
		want time.Duration
	}{
		{"first failure", Config{Backoff: time.Second, MaxBackoff: time.Minute}, 1, time.Second},
		{"third failure", Config{Backoff: time.Second, MaxBackoff: time.Minute}, 3, 4 * time.Second},
		{"capped", Config{Backoff: time.Second, MaxBackoff: 5 * time.Second}, 10, 5 * time.Second},
		{"defaults", Config{}, 1, 10 * time.Second},
		{"default top", Config{}, 100, 5 * time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := (&Recorder{Config: c.cfg}).backoff(c.n); got != c.want {
				t.Errorf("backoff(%d) = %s, want %s", c.n, got, c.want)
			}
		})
	}
}

func TestBacklogAndWrittenWords(t *testing.T) {
	cases := []struct {
		name          string
		t             Recordable
		r             benchv1.ResultsRecording
		backlog, done string
	}{
		{"all written", Recordable{Kind: outbox.KindRun, Steps: 3, Ended: true}, benchv1.ResultsRecording{StepsWritten: 3, EndWritten: true, Secret: "db/uri"},
			"nothing", "3 steps and the end in the results database (Secret db/uri)"},
		{"one step behind", Recordable{Kind: outbox.KindRun, Steps: 2}, benchv1.ResultsRecording{StepsWritten: 1, Secret: "db/uri"},
			"step 1", "1 step in the results database (Secret db/uri)"},
		{"steps and the end behind", Recordable{Kind: outbox.KindRun, Steps: 5, Ended: true}, benchv1.ResultsRecording{StepsWritten: 2, Secret: "db/uri"},
			"steps 2..4 and the run's end", "2 steps in the results database (Secret db/uri)"},
		{"a suite's end", Recordable{Kind: outbox.KindSuite, Ended: true}, benchv1.ResultsRecording{Secret: "db/uri"},
			"the suite's end", "the suite in the results database (Secret db/uri)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := backlogWords(&c.t, &c.r); got != c.backlog {
				t.Errorf("backlog %q, want %q", got, c.backlog)
			}
			if got := writtenWords(&c.t, &c.r); got != c.done {
				t.Errorf("written %q, want %q", got, c.done)
			}
		})
	}
}

func TestTruncateWords(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"a longer message", 8, "a longer…"},
		{"héllo", 2, "h…"}, // é is two bytes: the cut never splits it
	}
	for _, c := range cases {
		if got := TruncateWords(c.in, c.n); got != c.want {
			t.Errorf("TruncateWords(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestMergeWait(t *testing.T) {
	cases := []struct{ a, b, want time.Duration }{
		{0, 5 * time.Second, 5 * time.Second},
		{3 * time.Second, 5 * time.Second, 3 * time.Second},
		{5 * time.Second, 3 * time.Second, 3 * time.Second},
		{-time.Second, 0, 0},
	}
	for _, c := range cases {
		if got := MergeWait(c.a, c.b); got != c.want {
			t.Errorf("MergeWait(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestEndOf(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC))
	conditions := []metav1.Condition{
		{Type: benchv1.ConditionComplete, Status: metav1.ConditionTrue, Reason: "Succeeded", Message: "found 14", ObservedGeneration: 2, LastTransitionTime: at},
		{Type: benchv1.ConditionFailed, Status: metav1.ConditionTrue, Reason: "DatabaseNotReady", Message: "not ready", ObservedGeneration: 3, LastTransitionTime: at},
	}
	if got := EndOf(benchv1.PhaseRunning, conditions); got != nil {
		t.Errorf("a running resource has an end: %+v", got)
	}
	for phase, want := range map[benchv1.Phase]outbox.End{
		benchv1.PhaseSucceeded: {Phase: benchv1.PhaseSucceeded, Reason: "Succeeded", Message: "found 14", Generation: 2, Time: at.Time},
		benchv1.PhaseFailed:    {Phase: benchv1.PhaseFailed, Reason: "DatabaseNotReady", Message: "not ready", Generation: 3, Time: at.Time},
	} {
		got := EndOf(phase, conditions)
		if got == nil || *got != want {
			t.Errorf("EndOf(%s) = %+v, want %+v", phase, got, want)
		}
	}
	if got := EndOf(benchv1.PhaseFailed, nil); got == nil || got.Reason != "" || got.Time.IsZero() {
		t.Errorf("an end without its condition: %+v, want the phase at the time of reading", got)
	}
}
