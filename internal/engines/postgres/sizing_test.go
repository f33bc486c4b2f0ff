package postgres

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// The Cluster carries the parameters sized from memory, except those the run sets itself; the run's
// status records both.
func TestClusterSizing(t *testing.T) {
	memory := func(request, limit string) corev1.ResourceRequirements {
		r := corev1.ResourceRequirements{Requests: corev1.ResourceList{}, Limits: corev1.ResourceList{}}
		if request != "" {
			r.Requests[corev1.ResourceMemory] = resource.MustParse(request)
		}
		if limit != "" {
			r.Limits[corev1.ResourceMemory] = resource.MustParse(limit)
		}
		return r
	}
	cases := []struct {
		name       string
		spec       *benchv1.PostgresSpec
		wait       benchv1.Wait
		want       map[string]string // every parameter of the Cluster
		memoryFrom string
		userSet    []string
	}{
		{"no memory: only max_connections, from the run's connections (1 001 without waits, + 20)",
			&benchv1.PostgresSpec{Parameters: map[string]string{"shared_buffers": "1GB"}}, benchv1.WaitNone,
			map[string]string{"shared_buffers": "1GB", "max_connections": "1021", "synchronous_commit": "remote_apply"}, "", nil},
		{"8Gi limit over a 4Gi request, 100 warehouses, 50Gi volumes",
			&benchv1.PostgresSpec{Resources: memory("4Gi", "8Gi"), Storage: benchv1.StorageSpec{Size: resource.MustParse("50Gi")}}, benchv1.WaitSpec,
			map[string]string{"shared_buffers": "2GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// 100 warehouses on one client pod: 69 + telemetry + 20 stays under PostgreSQL's 100.
				"work_mem": "20971kB", "max_connections": "100", "max_wal_size": "2109MB", "synchronous_commit": "remote_apply"},
			"limit", nil},
		{"8Gi limit over a 1Gi request: shared_buffers no larger than the request",
			&benchv1.PostgresSpec{Resources: memory("1Gi", "8Gi"), Storage: benchv1.StorageSpec{Size: resource.MustParse("50Gi")}}, benchv1.WaitSpec,
			map[string]string{"shared_buffers": "1GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				"work_mem": "24466kB", "max_connections": "100", "max_wal_size": "2109MB", "synchronous_commit": "remote_apply"},
			"limit", nil},
		{"request only; without waits a connection per terminal; the run's parameters win",
			&benchv1.PostgresSpec{Resources: memory("8Gi", ""), Storage: benchv1.StorageSpec{Size: resource.MustParse("50Gi")},
				Parameters: map[string]string{"shared_buffers": "1GB", "max_connections": "5000", "random_page_cost": "1.1"}}, benchv1.WaitNone,
			map[string]string{"shared_buffers": "1GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// (8 GiB − the run's 1 GB) / (the run's 5000 connections × 3)
				"work_mem": "489kB", "max_connections": "5000", "max_wal_size": "2109MB", "random_page_cost": "1.1",
				"synchronous_commit": "remote_apply"},
			"request", []string{"max_connections", "shared_buffers"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(tc.spec)
			r.Spec.Workload = benchv1.WorkloadSpec{Warehouses: 100, Wait: tc.wait}
			got := Backend{}.Cluster(r).Spec.PostgresConfiguration.Parameters
			if !maps.Equal(got, tc.want) {
				t.Errorf("parameters\n got  %v\n want %v", got, tc.want)
			}
			sizing := Backend{}.Sizing(r)
			if tc.memoryFrom == "" {
				if sizing != nil {
					t.Errorf("sizing = %+v, want none", sizing)
				}
				return
			}
			if sizing == nil || sizing.MemoryFrom != tc.memoryFrom || !slices.Equal(sizing.UserSet, tc.userSet) {
				t.Fatalf("sizing = %+v, want memory from %s, user set %v", sizing, tc.memoryFrom, tc.userSet)
			}
			for name, value := range sizing.Settings {
				if got[name] != value {
					t.Errorf("status says %s = %s, the Cluster has %s", name, value, got[name])
				}
			}
			if len(sizing.Settings) != 6 {
				t.Errorf("status records %d settings, want the 6 sized ones: %v", len(sizing.Settings), sizing.Settings)
			}
		})
	}
}
