//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// The results database of the e2e (docs/results.md): a one-instance CloudNativePG cluster
// "results" in the test's namespace, whose <cluster>-app Secret holds the URI the run names.
const resultsSecret = "results-app"

// createResultsDatabase creates the results database's cluster. It needs not be ready before the
// run starts: until it is, the run's writes wait (ResultsRecorded says so) and the backlog goes in
// once it answers.
func createResultsDatabase(t *testing.T, namespace string) {
	t.Helper()
	cluster := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "results"},
		Spec: cnpgv1.ClusterSpec{Instances: 1, StorageConfiguration: cnpgv1.StorageConfiguration{Size: "1Gi"},
			PostgresConfiguration: cnpgv1.PostgresConfiguration{Parameters: map[string]string{"shared_buffers": "32MB", "max_connections": "40"}}}}
	if err := k8s.Create(context.Background(), cluster); err != nil {
		t.Fatal(err)
	}
}

// withResults makes a run record into the results database.
func withResults(run *benchv1.BenchmarkRun) {
	run.Spec.Results = &benchv1.ResultsSpec{SecretRef: &benchv1.SecretKeyRef{Name: resultsSecret, Key: "uri"}}
	if run.Labels == nil {
		run.Labels = map[string]string{}
	}
	run.Labels["e2e"] = "results"
}

var generatedLine = regexp.MustCompile(`Generated \S+ by tpcc-operator`)

// checkResultsOutliveTheRun waits for the run's steps and result in the results database, deletes
// the run, and finds it in kubectl tpcc history and its report rebuilt from the database: the page
// the live run gave (livePage, written by kubectl tpcc report before), but for when it was made.
func checkResultsOutliveTheRun(t *testing.T, namespace, name, livePage string, plugin func(args ...string) (string, string, int)) {
	t.Helper()
	key := client.ObjectKey{Namespace: namespace, Name: name}
	deadline := time.Now().Add(10 * time.Minute)
	for {
		run := &benchv1.BenchmarkRun{}
		if err := k8s.Get(context.Background(), key, run); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(run.Status.Conditions, benchv1.ConditionResultsRecorded)
		if c != nil && c.Status == metav1.ConditionTrue {
			t.Logf("ResultsRecorded: %s", c.Message)
			if rec := run.Status.ResultsDatabase; rec == nil || !rec.EndWritten || int(rec.StepsWritten) != len(run.Status.Steps) {
				t.Fatalf("ResultsRecorded True with %+v", rec)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run's results did not reach the results database: ResultsRecorded %+v, recording %+v", c, run.Status.ResultsDatabase)
		}
		time.Sleep(3 * time.Second)
	}

	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if err := k8s.Delete(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Second) {
		err := k8s.Get(context.Background(), key, &benchv1.BenchmarkRun{})
		if apierrors.IsNotFound(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run is still there: %v", err)
		}
	}

	out, errs, code := plugin("history", "--results-secret", resultsSecret, "-l", "e2e=results")
	t.Logf("kubectl tpcc history:\n%s", out)
	if code != 0 || !strings.Contains(out, name) || !strings.Contains(out, "Succeeded") || !strings.Contains(out, "e2e=results") {
		t.Fatalf("history after the run was deleted (exit %d): %s %s", code, out, errs)
	}
	file := filepath.Join(t.TempDir(), "rebuilt.html")
	_, errs, code = plugin("report", name, "-o", "html", "-f", file, "--results-secret", resultsSecret)
	if code != 0 || !strings.Contains(errs, "from the results database: BenchmarkRun "+namespace+"/"+name) {
		t.Fatalf("report of the deleted run (exit %d): %s", code, errs)
	}
	rebuilt, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	live, err := os.ReadFile(livePage)
	if err != nil {
		t.Fatal(err)
	}
	a, b := generatedLine.ReplaceAllString(string(rebuilt), "Generated - by tpcc-operator"), generatedLine.ReplaceAllString(string(live), "Generated - by tpcc-operator")
	if a != b {
		t.Errorf("the page rebuilt from the results database (%d bytes) differs from the live run's (%d bytes)", len(rebuilt), len(live))
	}
	if !strings.Contains(a, "Step 0: p90 response time over time") {
		t.Error("the rebuilt page has no time series")
	}
	browserChecksRunReport(t, file)
}
