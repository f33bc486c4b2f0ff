package engines

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Memory sizing: the settings each engine sizes from its pod's memory are computed the same way for
// every engine (each engine's folder applies these shares), so that a comparison measures
// engines, not configuration. docs/sizing.md gives the reasons for every figure.

// Binary units of the sizes below.
const (
	KiB = int64(1) << 10
	MiB = int64(1) << 20
	GiB = int64(1) << 30
)

// Shares of an instance's memory.
const (
	// CacheSharePercent is the engine's own page cache: PostgreSQL shared_buffers, CockroachDB
	// --cache.
	CacheSharePercent = 25
	// SQLMemorySharePercent is CockroachDB's --max-sql-memory.
	SQLMemorySharePercent = 25
	// EffectiveCacheSharePercent is PostgreSQL's effective_cache_size: shared_buffers plus the
	// kernel's page cache the instance can count on.
	EffectiveCacheSharePercent = 75
)

// MemoryOf is the memory the settings are sized from: the memory limit if set, else the request;
// from says which ("limit", "request"); ok is false when neither is set.
func MemoryOf(r corev1.ResourceRequirements) (bytes int64, from string, ok bool) {
	if q, set := r.Limits[corev1.ResourceMemory]; set && q.Value() > 0 {
		return q.Value(), "limit", true
	}
	if q, set := r.Requests[corev1.ResourceMemory]; set && q.Value() > 0 {
		return q.Value(), "request", true
	}
	return 0, "", false
}

// RoundDown rounds v down to a multiple of unit.
func RoundDown(v, unit int64) int64 { return v / unit * unit }

// SizingStatus is the status record of settings sized from memory: sized holds the sized values,
// user the run's own settings, which win for the names they share.
func SizingStatus(memory int64, from string, connections int, sized, user map[string]string) *benchv1.DatabaseSizing {
	s := &benchv1.DatabaseSizing{
		Memory: *resource.NewQuantity(memory, resource.BinarySI), MemoryFrom: from,
		Connections: int32(connections), Settings: map[string]string{},
	}
	for name, value := range sized {
		if own, given := user[name]; given {
			value = own
			s.UserSet = append(s.UserSet, name)
		}
		s.Settings[name] = value
	}
	slices.Sort(s.UserSet)
	return s
}
