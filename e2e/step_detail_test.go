//go:build e2e

package e2e

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/stepdetail"
)

// withStepDetail is run with its measured steps' per-pod telemetry and placement read back from
// the step ConfigMaps their detailIn names: status keeps each measured step's summary only.
func withStepDetail(t *testing.T, run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	t.Helper()
	records := map[int32]benchv1.StepResult{}
	for _, s := range run.Status.Steps {
		if s.DetailIn == "" {
			continue
		}
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: run.Namespace, Name: s.DetailIn}, cm); err != nil {
			t.Fatalf("step %d's detail (ConfigMap %s): %v", s.Index, s.DetailIn, err)
		}
		rec, err := stepdetail.RecordOf(cm.Data["step.json"])
		if err != nil {
			t.Fatalf("ConfigMap %s: %v", cm.Name, err)
		}
		records[s.Index] = rec
	}
	return stepdetail.Restore(run, records)
}
