// Package workload is the arithmetic of a run's pods: how many loader and client pods serve its
// warehouses and how many database connections they open. The Jobs are built from it
// (internal/jobs), and an engine sizes its connection limits by it (internal/engines), so both see
// the same figures.
package workload

import (
	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/shard"
)

// Sizing defaults when spec.workload.clients.pods or loader.pods is 0.
const (
	WarehousesPerClientPod = 500 // 5 000 goroutine terminals
	MaxClientPods          = 64
	WarehousesPerLoaderPod = 50
	MaxLoaderPods          = 16
	LoaderThreads          = 4
)

// LoaderPods is how many pods load the warehouses.
func LoaderPods(run *benchv1.BenchmarkRun) int32 {
	if p := run.Spec.Workload.Loader.Pods; p > 0 {
		return min(p, run.Spec.Workload.Warehouses)
	}
	return int32(shard.Count(int(run.Spec.Workload.Warehouses), WarehousesPerLoaderPod, MaxLoaderPods))
}

// ClientPods is how many client pods drive a step of active warehouses.
func ClientPods(run *benchv1.BenchmarkRun, active int32) int32 {
	if p := run.Spec.Workload.Clients.Pods; p > 0 {
		return min(p, active)
	}
	return int32(shard.Count(int(active), WarehousesPerClientPod, MaxClientPods))
}
