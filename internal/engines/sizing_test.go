package engines

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestSizePostgres(t *testing.T) {
	cases := []struct {
		name string
		in   SizingInput
		want map[string]string
	}{
		{"8 GiB, 100 warehouses with spec waits (201 client connections), 50 GiB volume",
			SizingInput{Memory: 8 * gB, Connections: 201, Warehouses: 100, Storage: 50 * gB},
			map[string]string{
				"shared_buffers": "2GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// (8 GiB − 2 GiB) / (221 × 3) = 9 489 kB
				"work_mem": "9489kB", "max_connections": "221",
				// 100 × 24 KiB/s × 300 s × 3 = 2 109 MB
				"max_wal_size": "2109MB",
			}},
		{"small pod: PostgreSQL's defaults are the floor of max_connections and max_wal_size",
			SizingInput{Memory: 512 * mB, Connections: 5, Warehouses: 2, Storage: 10 * gB},
			map[string]string{
				"shared_buffers": "128MB", "effective_cache_size": "384MB", "maintenance_work_mem": "32MB",
				"work_mem": "1310kB", "max_connections": "100", "max_wal_size": "1GB",
			}},
		{"large machine: maintenance_work_mem capped, max_wal_size capped by the volume",
			SizingInput{Memory: 256 * gB, Connections: 36001, Warehouses: 18000, Storage: 1 << 40},
			map[string]string{
				"shared_buffers": "64GB", "effective_cache_size": "192GB", "maintenance_work_mem": "2GB",
				"work_mem": "1863kB", "max_connections": "36021", "max_wal_size": "256GB",
			}},
		{"tiny memory: PostgreSQL's minimums hold",
			SizingInput{Memory: 2 * mB, Connections: 0, Warehouses: 1},
			map[string]string{
				"shared_buffers": "128kB", "effective_cache_size": "1MB", "maintenance_work_mem": "1MB",
				"work_mem": "64kB", "max_connections": "100", "max_wal_size": "1GB",
			}},
		{"without a volume size max_wal_size is uncapped",
			SizingInput{Memory: 64 * gB, Connections: 2001, Warehouses: 1000},
			map[string]string{
				"shared_buffers": "16GB", "effective_cache_size": "48GB", "maintenance_work_mem": "2GB",
				"work_mem": "8301kB", "max_connections": "2021", "max_wal_size": "21093MB",
			}},
		{"shared_buffers never above the memory request (CloudNativePG's webhook rejects it)",
			SizingInput{Memory: 8 * gB, MemoryRequest: 1 * gB, Connections: 201, Warehouses: 100, Storage: 50 * gB},
			map[string]string{
				"shared_buffers": "1GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// (8 GiB − 1 GiB) / (221 × 3)
				"work_mem": "11070kB", "max_connections": "221", "max_wal_size": "2109MB",
			}},
		{"max_connections stays under PostgreSQL's backend limit",
			SizingInput{Memory: 512 * gB, Connections: 300_001, Warehouses: 30_000, Storage: 1 << 40},
			map[string]string{
				"shared_buffers": "128GB", "effective_cache_size": "384GB", "maintenance_work_mem": "2GB",
				"work_mem": "516kB", "max_connections": "260000", "max_wal_size": "256GB",
			}},
		{"work_mem divides what the user's shared_buffers and max_connections leave",
			SizingInput{Memory: 8 * gB, Connections: 201, Warehouses: 100, Storage: 50 * gB, SharedBuffers: 4 * gB, MaxConnections: 1000},
			map[string]string{
				"shared_buffers": "2GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// (8 GiB − 4 GiB) / (1000 × 3) = 1 398 kB
				"work_mem": "1398kB", "max_connections": "221", "max_wal_size": "2109MB",
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := SizePostgres(tc.in).Parameters()
			if !maps.Equal(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestPostgresSize(t *testing.T) {
	for bytes, want := range map[int64]string{
		2 * gB: "2GB", 1536 * mB: "1536MB", 64 * kB: "64kB", 100: "1kB", 3 << 40: "3TB", 9489 * kB: "9489kB",
	} {
		if got := PostgresSize(bytes); got != want {
			t.Errorf("PostgresSize(%d) = %s, want %s", bytes, got, want)
		}
	}
}

func TestSizeCockroach(t *testing.T) {
	cases := []struct {
		memory             int64
		cache, maxSQLMemry string
	}{
		{8 * gB, "2GiB", "2GiB"},
		{3 * gB, "768MiB", "768MiB"},
		{10 * gB, "2560MiB", "2560MiB"},
	}
	for _, tc := range cases {
		s := SizeCockroach(tc.memory)
		if got := CockroachSize(s.Cache); got != tc.cache {
			t.Errorf("%d: cache %s, want %s", tc.memory, got, tc.cache)
		}
		if got := CockroachSize(s.MaxSQLMemory); got != tc.maxSQLMemry {
			t.Errorf("%d: max-sql-memory %s, want %s", tc.memory, got, tc.maxSQLMemry)
		}
	}
}

func TestMemoryOf(t *testing.T) {
	q := resource.MustParse
	cases := []struct {
		name  string
		r     corev1.ResourceRequirements
		bytes int64
		from  string
		ok    bool
	}{
		{"none", corev1.ResourceRequirements{}, 0, "", false},
		{"cpu only", corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: q("2")}}, 0, "", false},
		{"request", corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: q("4Gi")}}, 4 * gB, "request", true},
		{"the limit wins over the request", corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceMemory: q("4Gi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: q("8Gi")}}, 8 * gB, "limit", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bytes, from, ok := MemoryOf(tc.r)
			if bytes != tc.bytes || from != tc.from || ok != tc.ok {
				t.Errorf("MemoryOf = %d %q %v, want %d %q %v", bytes, from, ok, tc.bytes, tc.from, tc.ok)
			}
		})
	}
}

func TestParsePostgresSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2GB", 2 * gB, true}, {"512MB", 512 * mB, true}, {"64kB", 64 * kB, true}, {"16384", 16384 * 8 * kB, true},
		{" 1 GB ", gB, true}, {"1gb", 0, false}, {"GB", 0, false}, {"", 0, false}, {"1.5GB", 0, false},
	}
	for _, tc := range cases {
		got, ok := ParsePostgresSize(tc.in, 8*kB)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParsePostgresSize(%q) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
