//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

const suiteTimeout = 60 * time.Minute

// testDemoSuite: config/samples/suite-demo.yaml — PostgreSQL under remote_apply, remote_write and
// asynchronous replication — runs its databases one at a time to a row each and the comparison
// ConfigMap, and the remote_apply and asynchronous rows differ in what a commit waits for. The
// sample's workload is cut to the e2e's size (2 warehouses, one 60 s step per run) so the three runs
// fit the e2e's time; `make demo-suite` runs the sample as written.
func testDemoSuite(t *testing.T) {
	longCase(t, 19, "config/samples/suite-demo.yaml: three runs one after the other")
	ns := newNamespace(t, "e2e-suite")
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join(repoRoot, "config/samples/suite-demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	suite := &benchv1.BenchmarkSuite{}
	if err := yaml.UnmarshalStrict(data, suite); err != nil {
		t.Fatal(err)
	}
	suite.Namespace = ns
	small := smallSyncRun(ns, "unused").Spec
	suite.Spec.Workload, suite.Spec.Search = small.Workload, small.Search
	// The e2e proves the suite's machinery, not these databases' compliance: efficiency is bounded
	// at smallSyncRun's 50 % (~26 New-Orders a 60 s step; a first e2e measured 77.75 % under
	// remote_apply).
	suite.Spec.SLA.MinEfficiencyPercent = small.SLA.MinEfficiencyPercent
	if err := k8s.Create(ctx, suite); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(suite)

	// One run at a time: whenever two runs exist, the earlier one has ended and its database is gone.
	deadline := time.Now().Add(suiteTimeout)
	var done *benchv1.BenchmarkSuite
	lastProgress := ""
	for done == nil {
		got := &benchv1.BenchmarkSuite{}
		if err := k8s.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		if p := string(got.Status.Phase) + " " + got.Status.Progress; p != lastProgress {
			t.Logf("suite %s: %s", key.Name, p)
			lastProgress = p
		}
		runs := &benchv1.BenchmarkRunList{}
		if err := k8s.List(ctx, runs, client.InNamespace(ns), client.MatchingLabels{benchv1.SuiteLabel: suite.Name}); err != nil {
			t.Fatal(err)
		}
		active := 0
		for _, r := range runs.Items {
			if r.Status.Phase != benchv1.PhaseSucceeded && r.Status.Phase != benchv1.PhaseFailed {
				active++
			}
		}
		if active > 1 {
			t.Fatalf("%d runs under way at once", active)
		}
		switch got.Status.Phase {
		case benchv1.PhaseSucceeded:
			done = got
		case benchv1.PhaseFailed:
			t.Fatalf("suite failed: %+v", got.Status.Conditions)
		}
		if time.Now().After(deadline) {
			t.Fatalf("suite did not end within %s: %+v", suiteTimeout, got.Status)
		}
		time.Sleep(5 * time.Second)
	}

	s := done.Status
	if !meta.IsStatusConditionTrue(s.Conditions, benchv1.ConditionComplete) || s.Progress != "3/3" || len(s.Results) != 3 {
		t.Fatalf("status: progress %q, %d rows, conditions %+v", s.Progress, len(s.Results), s.Conditions)
	}
	rows := map[string]benchv1.SuiteDatabaseResult{}
	for _, r := range s.Results {
		rows[r.Database] = r
		t.Logf("%-13s runs %d/%d  tpmC %+v  efficiency %+v  durability %q  %s", r.Database, r.RunsSucceeded, r.Runs, r.TpmC, r.Efficiency, r.Durability, r.Versus)
		if r.RunsSucceeded != 1 || r.TpmC == nil || r.TpmC.Mean <= 0 || len(r.Latency) == 0 {
			t.Errorf("row %s: %+v", r.Database, r)
		}
	}
	apply, async := rows["remote-apply"].Durability, rows["async"].Durability
	if apply == async || !strings.Contains(apply, "remote_apply") || !strings.Contains(async, "0 synchronous replicas") {
		t.Errorf("durability: remote-apply %q, async %q", apply, async)
	}
	notes := strings.Join(s.Notes, "\n")
	t.Logf("notes:\n%s", notes)
	if !strings.Contains(notes, "a commit on async waits for the primary's own WAL flush only") || !strings.Contains(notes, "a commit on remote-write waits for") {
		t.Errorf("notes lack the durability notes: %s", notes)
	}
	for _, rec := range s.Runs {
		if rec.Phase != benchv1.PhaseSucceeded || rec.Report == "" {
			t.Errorf("run %s: %+v", rec.Name, rec)
		}
		err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: rec.Name + "-db"}, &cnpgv1.Cluster{})
		if !isNotFound(err) {
			t.Errorf("the database of %s was not torn down: %v", rec.Name, err)
		}
	}

	cm := &corev1.ConfigMap{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: s.Report.ConfigMapName}, cm); err != nil {
		t.Fatalf("comparison ConfigMap: %v", err)
	}
	if owner := metav1.GetControllerOf(cm); owner == nil || owner.Name != suite.Name {
		t.Errorf("comparison ConfigMap owner %+v", owner)
	}
	var parsed struct {
		SchemaVersion int `json:"schemaVersion"`
		Results       []benchv1.SuiteDatabaseResult
	}
	if err := json.Unmarshal([]byte(cm.Data["comparison.json"]), &parsed); err != nil || parsed.SchemaVersion != 1 || len(parsed.Results) != 3 {
		t.Errorf("comparison.json: %v, %+v", err, parsed)
	}
	md := cm.Data["comparison.md"]
	t.Logf("comparison.md:\n%s", md)
	for _, want := range []string{"## Results", "| remote-apply |", "| async |", "## Fairness notes", "### remote-write"} {
		if !strings.Contains(md, want) {
			t.Errorf("comparison.md lacks %q", want)
		}
	}
}
