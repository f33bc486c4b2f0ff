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
	// Loader pods of a database that declares no CPU: one per 50 warehouses, at most 16.
	WarehousesPerLoaderPod = 50
	MaxLoaderPods          = 16
	// MaxLoaderPodsByCPU bounds the loader pods sized from the database's CPU.
	MaxLoaderPodsByCPU = 256
	LoaderThreads      = 4
)

// LoaderPods is how many pods load the warehouses: spec.workload.loader.pods, else
// DefaultLoaderPods from the warehouses and loadCPU, the database's CPU the load writes through in
// millicores (engines.LoadCPU; 0 when it declares none).
func LoaderPods(run *benchv1.BenchmarkRun, loadCPU int64) int32 {
	if p := run.Spec.Workload.Loader.Pods; p > 0 {
		return min(p, run.Spec.Workload.Warehouses)
	}
	return DefaultLoaderPods(run.Spec.Workload.Warehouses, loadCPU)
}

// DefaultLoaderPods is the loader pods of warehouses when the run does not set them: a stream
// (loader thread) per database vCPU the load writes through, LoaderThreads a pod, at least one pod
// and at most one a warehouse and MaxLoaderPodsByCPU. A database that declares no CPU
// (loadCPU 0) gets one pod per WarehousesPerLoaderPod warehouses, at most MaxLoaderPods.
func DefaultLoaderPods(warehouses int32, loadCPU int64) int32 {
	if loadCPU <= 0 {
		return int32(shard.Count(int(warehouses), WarehousesPerLoaderPod, MaxLoaderPods))
	}
	streams := (loadCPU + 999) / 1000
	pods := (streams + LoaderThreads - 1) / LoaderThreads
	return int32(max(1, min(pods, int64(warehouses), MaxLoaderPodsByCPU)))
}

// ClientPods is how many client pods drive a step of active warehouses.
func ClientPods(run *benchv1.BenchmarkRun, active int32) int32 {
	if p := run.Spec.Workload.Clients.Pods; p > 0 {
		return min(p, active)
	}
	return int32(shard.Count(int(active), WarehousesPerClientPod, MaxClientPods))
}
