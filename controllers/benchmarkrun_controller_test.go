package controllers

import (
	"context"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestNewRunIsPendingAndWaiting(t *testing.T) {
	ctx := context.Background()
	run := &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pending"},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL},
			Workload: benchv1.WorkloadSpec{Warehouses: 1},
		},
	}
	if err := k8s.Create(ctx, run); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, func() error {
		got := &benchv1.BenchmarkRun{}
		if err := k8s.Get(ctx, client.ObjectKeyFromObject(run), got); err != nil {
			return err
		}
		if got.Status.Phase != benchv1.PhasePending {
			return fmt.Errorf("phase %q, want Pending", got.Status.Phase)
		}
		if got.Status.ObservedGeneration != got.Generation {
			return fmt.Errorf("observedGeneration %d, want %d", got.Status.ObservedGeneration, got.Generation)
		}
		complete := meta.FindStatusCondition(got.Status.Conditions, benchv1.ConditionComplete)
		if complete == nil || complete.Status != metav1.ConditionFalse || complete.Reason != "Waiting" {
			return fmt.Errorf("condition Complete = %+v, want False/Waiting", complete)
		}
		return nil
	})
}
