package run

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/stepdetail"
)

// withStepDetail is run with its measured steps' per-pod lists read back from the step
// ConfigMaps their detailIn names, failing the test when a measured step names none: status
// keeps each measured step's summary only.
func withStepDetail(t *testing.T, run *benchv1.BenchmarkRun) *benchv1.BenchmarkRun {
	t.Helper()
	records := map[int32]benchv1.StepResult{}
	for _, s := range run.Status.Steps {
		if s.Telemetry != nil && s.DetailIn == "" {
			t.Errorf("measured step %d names no ConfigMap for its per-pod detail", s.Index)
		}
		if s.DetailIn == "" {
			continue
		}
		if (s.Telemetry != nil && len(s.Telemetry.Pods) > 0) || (s.Placement != nil && len(s.Placement.Pods) > 0) {
			t.Errorf("step %d keeps per-pod lists in status beside detailIn %q", s.Index, s.DetailIn)
		}
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: run.Namespace, Name: s.DetailIn}, cm); err != nil {
			t.Fatalf("step %d's detail (ConfigMap %s): %v", s.Index, s.DetailIn, err)
		}
		rec, err := stepdetail.RecordOf(cm.Data["step.json"])
		if err != nil {
			t.Fatal(err)
		}
		records[s.Index] = rec
	}
	return stepdetail.Restore(run, records)
}
