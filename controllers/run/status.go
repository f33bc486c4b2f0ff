package run

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/metrics"
)

// updateStatus writes a run's status (writeStatus), records the observed generation, and announces
// a phase change as an event.
func (r *Reconciler) updateStatus(ctx context.Context, run *benchv1.BenchmarkRun, mutate func(*benchv1.BenchmarkRunStatus)) error {
	before, after, err := kube.WriteStatus(ctx, r.APIReader, r.Client, run, func() *benchv1.BenchmarkRun { return &benchv1.BenchmarkRun{} },
		func(o *benchv1.BenchmarkRun) *benchv1.BenchmarkRunStatus { return &o.Status },
		func(current *benchv1.BenchmarkRun, s *benchv1.BenchmarkRunStatus) {
			mutate(s)
			s.ObservedGeneration = current.Generation
			runReadyConditions(s, current.Generation)
		})
	if err != nil {
		return err
	}
	metrics.RecordRun(run)
	kube.AnnouncePhase(r.Recorder, run, before.Phase, after.Phase)
	return nil
}

// setCondition sets one condition of a run; its transition time changes only when its status does.
func setCondition(status *benchv1.BenchmarkRunStatus, generation int64, conditionType string, value metav1.ConditionStatus, reason, message string) {
	kube.SetCondition(&status.Conditions, generation, conditionType, value, reason, message)
}

// fail ends the run: phase Failed, conditions Failed=True and Complete=False with the reason, and
// a warning event. It returns errRunFailed for the caller to return.
func (r *Reconciler) fail(ctx context.Context, run *benchv1.BenchmarkRun, reason, message string) error {
	err := r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
		s.Phase = benchv1.PhaseFailed
		s.Current = nil
		setCondition(s, run.Generation, benchv1.ConditionFailed, metav1.ConditionTrue, reason, message)
		setCondition(s, run.Generation, benchv1.ConditionComplete, metav1.ConditionFalse, reason, message)
	})
	if err != nil {
		return err
	}
	if r.Recorder != nil {
		r.Recorder.Eventf(run, nil, corev1.EventTypeWarning, reason, "Fail", "%s", message)
	}
	return errRunFailed
}
