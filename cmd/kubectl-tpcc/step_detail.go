package main

import (
	"context"
	"fmt"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/stepdetail"
)

// withStepDetail is run with its steps' per-pod telemetry and placement read back from the step
// ConfigMaps their detailIn names (status keeps each measured step's summary only): every step's
// when all, else the latest such step's (what `status` shows). A ConfigMap that is gone leaves
// its step a summary.
func (k *cluster) withStepDetail(ctx context.Context, run *benchv1.BenchmarkRun, all bool) (*benchv1.BenchmarkRun, error) {
	records := map[int32]benchv1.StepResult{}
	for i := len(run.Status.Steps) - 1; i >= 0; i-- {
		s := run.Status.Steps[i]
		if s.DetailIn == "" {
			continue
		}
		cm, err := k.configMap(ctx, run.Namespace, s.DetailIn)
		if err != nil {
			return nil, err
		}
		if cm != nil {
			rec, err := stepdetail.RecordOf(cm.Data["step.json"])
			if err != nil {
				return nil, fmt.Errorf("ConfigMap %s: %w", cm.Name, err)
			}
			records[s.Index] = rec
		}
		if !all {
			break
		}
	}
	return stepdetail.Restore(run, records), nil
}
