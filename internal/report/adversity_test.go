package report

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func profile(base, delay float64, without, recovered time.Duration) *benchv1.AdversityRecord {
	d := func(x time.Duration) *metav1.Duration { return &metav1.Duration{Duration: x} }
	one := int32(0)
	return &benchv1.AdversityRecord{Hold: *d(30 * time.Second), Recovery: *d(20 * time.Second), States: []benchv1.AdversityStateRecord{
		{State: benchv1.AdversityBaseline, TpmC: base, P90: map[benchv1.Transaction]metav1.Duration{benchv1.NewOrder: *d(80 * time.Millisecond)}},
		{State: benchv1.AdversityNetworkDelay, Start: *d(50 * time.Second), TpmC: delay, Injection: &one, Unavailability: d(without), Recovery: d(recovered),
			P90: map[benchv1.Transaction]metav1.Duration{benchv1.NewOrder: *d(150 * time.Millisecond)}, Errors: map[benchv1.Transaction]int64{benchv1.Payment: 2}},
	}}
}

func TestAdversityBlock(t *testing.T) {
	run := &benchv1.BenchmarkRun{}
	run.Status.Steps = []benchv1.StepResult{{Index: 0, Kind: benchv1.StepFull}, {Index: 1, Kind: benchv1.StepAdversity, ActiveWarehouses: 2,
		Adversity: profile(2000, 1500, 4200*time.Millisecond, 10*time.Second),
		Fault: &benchv1.FaultRecord{Injections: []benchv1.FaultInjection{{Fault: 0, Action: benchv1.FaultNetworkDelay, State: benchv1.FaultInjected,
			Pods: []string{"db-2", "db-3"}, Mechanism: "toxiproxy"}}, Ledger: &benchv1.LedgerCheck{Pass: true, Acknowledged: 10}, Consistency: "passed"}}}
	md := adversityMarkdown(run)
	for _, want := range []string{"## Resilience profile (step 1, 2 active warehouses)", "each held 30s and followed by 20s of recovery",
		"| Baseline | 0s | 2000.0 | — | 80.0ms |", "| NetworkDelay | 50s | 1500.0 | -25 % | 150.0ms | — | Payment 2 | 4.2s | 10s | NetworkDelay db-2, db-3 (toxiproxy). |",
		"New-Order ledger over the whole step: passed", "consistency conditions after the step: passed"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	if adversityMarkdown(&benchv1.BenchmarkRun{}) != "" {
		t.Error("a run without an adversity step has a profile")
	}
}

func TestAdversityProfilesSideBySide(t *testing.T) {
	c := Comparison{Results: []benchv1.SuiteDatabaseResult{{Database: "pg"}, {Database: "crdb"}, {Database: "none"}},
		Runs: []Run{
			{Database: "pg", Result: &benchv1.SuiteRunResult{Adversity: profile(2000, 1000, 2*time.Second, 10*time.Second)}},
			{Database: "pg", Result: &benchv1.SuiteRunResult{Adversity: profile(2000, 1400, 4*time.Second, 20*time.Second)}},
			{Database: "crdb", Result: &benchv1.SuiteRunResult{Adversity: profile(1000, 950, 0, 0)}},
			{Database: "none", Result: &benchv1.SuiteRunResult{}},
		}}
	header, rows := adversityProfiles(c)
	if strings.Join(header, "|") != "<state|<pg (2 runs)|<crdb (1 run)" {
		t.Errorf("header %q: want the databases with a profile", header)
	}
	if len(rows) != 2 || rows[0][1] != "baseline" || rows[1][1] != "tpmC -40 %; no commit 3s; recovered in 15s" || rows[1][2] != "tpmC -5 %; no commit 0s; recovered in 0s" {
		t.Errorf("rows %q", rows)
	}
	if md := adversityComparisonMarkdown(Comparison{Results: c.Results[2:], Runs: c.Runs[3:]}); md != "" {
		t.Errorf("no profile anywhere, yet:\n%s", md)
	}
}
