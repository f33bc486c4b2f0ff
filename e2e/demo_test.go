//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// TestDemoFindsCapacity: config/samples/demo.yaml, the run `make demo` follows, ends on a found
// capacity — reached by the default search strategy (Guided) with TPC-C's keying and think times,
// inside the loaded warehouses: a compliant full-length step at the answer and a non-compliant one
// within precision above it. In CI it reads the run of make demo, which runs beside the suite (E2E_DEMO_RUN); in the
// long tier it runs the sample as written, in a namespace of its own.
func TestDemoFindsCapacity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sample := readDemoSample(t)
	key := demoRun(t)
	if key.Name != "" {
		t.Logf("reading the run %s of make demo (E2E_DEMO_RUN), once it has ended", key)
	} else {
		longCase(t, 16, "the demo's run as written, to its found capacity (.ci/run reads make demo's run instead: E2E_DEMO_RUN)")
		run := sample.DeepCopy()
		run.Namespace = newNamespace(t, "e2e-demo")
		if err := k8s.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		key = client.ObjectKeyFromObject(run)
	}
	done := waitFor(t, key, demoRunTimeout, "phase Succeeded", func(r *benchv1.BenchmarkRun) bool { return r.Status.Phase == benchv1.PhaseSucceeded })
	// The run read is the sample as written (make demo applies it unchanged).
	if s := done.Spec.Search; (s.Strategy != "" && s.Strategy != benchv1.SearchGuided) || s.Mode != benchv1.SearchMaxCompliant || done.Spec.Workload.Wait != benchv1.WaitSpec {
		t.Fatalf("the demo's run searches %+v with wait %q: want the default strategy, Guided, with keying and think times", s, done.Spec.Workload.Wait)
	}
	if done.Spec.Workload.Warehouses != sample.Spec.Workload.Warehouses {
		t.Fatalf("the demo's run loads %d warehouses, demo.yaml %d", done.Spec.Workload.Warehouses, sample.Spec.Workload.Warehouses)
	}
	assertFoundCapacity(t, done, done)
	if res := done.Status.Result; res != nil && res.MaxCompliantWarehouses >= done.Spec.Workload.Warehouses {
		t.Errorf("the demo ended compliant at all %d loaded warehouses: no capacity found inside them", done.Spec.Workload.Warehouses)
	}
	// Bracketed: a capacity, not a floor (a compliant full step and a non-compliant one within
	// precision above it).
	if b := done.Status.Result.Bound; b != benchv1.BoundBracketed {
		t.Errorf("result.bound %q, want Bracketed", b)
	}
	// The demo's database is measured at 35m of CPU after a load under loadResources: it returns
	// to them for the check after the last step, which runs whole.
	if db := done.Status.Database; db == nil || db.ResourcesRestoreTime == nil || db.ResourcesRestoredTime == nil ||
		len(done.Status.Steps) == 0 || db.ResourcesRestoreTime.Before(done.Status.Steps[len(done.Status.Steps)-1].EndTime) {
		t.Errorf("status.database %+v: want the load resources restored after the last step", db)
	}
	assertCheckedAfterTheLastStep(t, done)
	assertDemoPriced(t, done)
}

// assertDemoPriced: demo.yaml's spec.pricing ends in status.result.pricePerformance — its three
// instances at their requests and volumes, 9.15795 USD a month, divided by the found tpmC — and in
// the report's Price-performance section with its disclaimer.
func assertDemoPriced(t *testing.T, done *benchv1.BenchmarkRun) {
	t.Helper()
	pp := done.Status.Result.PricePerformance
	if pp == nil || pp.NotPriced != "" || pp.Rule != benchv1.PricingRequests || pp.MonthlyCost == nil || *pp.MonthlyCost != 9.15795 ||
		pp.TpmCPerCurrency == nil || pp.CostPerTpmCMonth == nil || pp.CostPerTpmC3Years == nil {
		t.Fatalf("result.pricePerformance %+v, want the three instances at their requests, 9.15795 USD a month, and its ratios", pp)
	}
	cm := &corev1.ConfigMap{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: done.Namespace, Name: done.Status.Report.ConfigMapName}, cm); err != nil {
		t.Fatalf("report: %v", err)
	}
	for _, want := range []string{"## Price-performance", "9.15795 USD", "not a TPC price/performance result"} {
		if !strings.Contains(cm.Data["report.md"], want) {
			t.Errorf("the demo's report.md does not say %q", want)
		}
	}
}

// assertCheckedAfterTheLastStep requires the real check Job to have run after the run's last step
// on the data the steps left, with every acknowledged New-Order found in it.
func assertCheckedAfterTheLastStep(t *testing.T, done *benchv1.BenchmarkRun) {
	t.Helper()
	c := done.Status.Result.ConsistencyCheck
	if c == nil || !c.Passed || c.Conditions != 12 || c.ConditionsPassed != 12 || c.Duration == nil {
		t.Fatalf("result.consistencyCheck %+v, want 12 of 12 conditions passed", c)
	}
	if l := c.Ledger; l == nil || !l.Checked || !l.Pass || l.Acknowledged <= 0 || l.Growth < l.Acknowledged {
		t.Errorf("the run's New-Order ledger %+v, want checked and passed", l)
	}
	t.Logf("the check after the last step took %s: %s", c.Duration.Duration, c.Ledger.Detail)
}

// readDemoSample reads config/samples/demo.yaml strictly.
func readDemoSample(t *testing.T) *benchv1.BenchmarkRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "config/samples/demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run := &benchv1.BenchmarkRun{}
	if err := yaml.UnmarshalStrict(data, run); err != nil {
		t.Fatal(err)
	}
	return run
}
