//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os/exec"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// The Prometheus hack/cluster/install.sh runs on the local cluster, its part prometheus
// (hack/cluster/prometheus.yaml): make e2e installs it, make demo does not.
const (
	prometheusNamespace = "tpcc-monitoring"
	prometheusService   = "prometheus:9090"
)

// promQuery runs an instant PromQL query through the API server's service proxy and returns the
// values of the resulting vector.
func promQuery(query string) ([]float64, error) {
	path := fmt.Sprintf("/api/v1/namespaces/%s/services/%s/proxy/api/v1/query?query=%s",
		prometheusNamespace, prometheusService, url.QueryEscape(query))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, kubectl, "get", "--raw", path).Output()
	if err != nil {
		return nil, fmt.Errorf("kubectl get --raw %s: %w%s", path, err, stderrOf(err))
	}
	var resp struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string `json:"resultType"`
			Result     []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, fmt.Errorf("query %s: %w: %s", query, err, out)
	}
	if resp.Status != "success" || resp.Data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s: status %s, type %s, error %s", query, resp.Status, resp.Data.ResultType, resp.Error)
	}
	values := make([]float64, 0, len(resp.Data.Result))
	for _, r := range resp.Data.Result {
		text, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("query %s: value %v: %w", query, r.Value[1], err)
		}
		values = append(values, v)
	}
	return values, nil
}

func stderrOf(err error) string {
	if exit, ok := err.(*exec.ExitError); ok && len(exit.Stderr) > 0 {
		return ": " + string(exit.Stderr)
	}
	return ""
}

// assertPrometheusAgrees: the Prometheus on the local cluster scraped the operator while the run
// went (the live step metrics) and after it (the result): PromQL returns the figures of the CR.
// Skipped where no Prometheus runs (clusters other than the local one; the local one make demo
// left up, without install.sh prometheus).
func assertPrometheusAgrees(t *testing.T, done *benchv1.BenchmarkRun) {
	t.Helper()
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: prometheusNamespace, Name: "prometheus"}, &corev1.Service{}); isNotFound(err) {
		t.Logf("no Prometheus in %s (install.sh runs one on the local cluster only): PromQL checks skipped", prometheusNamespace)
		return
	} else if err != nil {
		t.Fatal(err)
	}
	last := done.Status.Steps[len(done.Status.Steps)-1]
	sel := fmt.Sprintf(`{namespace=%q, run=%q}`, done.Namespace, done.Name)
	checks := []struct {
		query string
		want  float64
	}{
		// The secure endpoint answered Prometheus' token (TokenReview, SubjectAccessReview).
		{`up{job="tpcc-operator"}`, 1},
		{`tpcc_run_phase{namespace="` + done.Namespace + `", run="` + done.Name + `", phase="Succeeded"}`, 1},
		{"tpcc_run_max_compliant_warehouses" + sel, float64(done.Status.Result.MaxCompliantWarehouses)},
		{"tpcc_run_last_step_tpmc" + sel, last.TpmC},
		{"tpcc_run_steps" + sel, float64(len(done.Status.Steps))},
		// Exported only while the step ran, and scraped then.
		{"max_over_time(tpcc_run_current_step_active_warehouses" + sel + "[1h])", float64(last.ActiveWarehouses)},
	}
	// The result is exported when status is written; Prometheus scrapes every 5 s.
	deadline := time.Now().Add(90 * time.Second)
	for _, c := range checks {
		for {
			values, err := promQuery(c.query)
			if err == nil && len(values) == 1 && math.Abs(values[0]-c.want) < 1e-9 {
				t.Logf("PromQL %s = %g, as in the CR", c.query, values[0])
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("PromQL %s = %v (err %v), want %g", c.query, values, err, c.want)
				break
			}
			time.Sleep(3 * time.Second)
		}
	}
}
