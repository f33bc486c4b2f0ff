package postgres

import (
	"maps"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func TestSize(t *testing.T) {
	cases := []struct {
		name string
		in   SizingInput
		want map[string]string
	}{
		{"8 GiB, 100 warehouses with spec waits (201 client connections), 50 GiB volume",
			SizingInput{Memory: 8 * engines.GiB, Connections: 201, Warehouses: 100, Storage: 50 * engines.GiB},
			map[string]string{
				"shared_buffers": "2GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// (8 GiB − 2 GiB) / (221 × 3) = 9 489 engines.KiB
				"work_mem": "9489kB", "max_connections": "221",
				// 100 × 24 KiB/s × 300 s × 3 = 2 109 MB
				"max_wal_size": "2109MB",
			}},
		{"small pod: PostgreSQL's defaults are the floor of max_connections and max_wal_size",
			SizingInput{Memory: 512 * engines.MiB, Connections: 5, Warehouses: 2, Storage: 10 * engines.GiB},
			map[string]string{
				"shared_buffers": "128MB", "effective_cache_size": "384MB", "maintenance_work_mem": "32MB",
				"work_mem": "1310kB", "max_connections": "100", "max_wal_size": "1GB",
			}},
		{"large machine: maintenance_work_mem capped, max_wal_size capped by the volume",
			SizingInput{Memory: 256 * engines.GiB, Connections: 36001, Warehouses: 18000, Storage: 1 << 40},
			map[string]string{
				"shared_buffers": "64GB", "effective_cache_size": "192GB", "maintenance_work_mem": "2GB",
				"work_mem": "1863kB", "max_connections": "36021", "max_wal_size": "256GB",
			}},
		{"tiny memory: PostgreSQL's minimums hold",
			SizingInput{Memory: 2 * engines.MiB, Connections: 0, Warehouses: 1},
			map[string]string{
				"shared_buffers": "128kB", "effective_cache_size": "1MB", "maintenance_work_mem": "1MB",
				"work_mem": "64kB", "max_connections": "100", "max_wal_size": "1GB",
			}},
		{"without a volume size max_wal_size is uncapped",
			SizingInput{Memory: 64 * engines.GiB, Connections: 2001, Warehouses: 1000},
			map[string]string{
				"shared_buffers": "16GB", "effective_cache_size": "48GB", "maintenance_work_mem": "2GB",
				"work_mem": "8301kB", "max_connections": "2021", "max_wal_size": "21093MB",
			}},
		{"shared_buffers never above the memory request (CloudNativePG's webhook rejects it)",
			SizingInput{Memory: 8 * engines.GiB, MemoryRequest: 1 * engines.GiB, Connections: 201, Warehouses: 100, Storage: 50 * engines.GiB},
			map[string]string{
				"shared_buffers": "1GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// (8 GiB − 1 GiB) / (221 × 3)
				"work_mem": "11070kB", "max_connections": "221", "max_wal_size": "2109MB",
			}},
		{"max_connections stays under PostgreSQL's backend limit",
			SizingInput{Memory: 512 * engines.GiB, Connections: 300_001, Warehouses: 30_000, Storage: 1 << 40},
			map[string]string{
				"shared_buffers": "128GB", "effective_cache_size": "384GB", "maintenance_work_mem": "2GB",
				"work_mem": "516kB", "max_connections": "260000", "max_wal_size": "256GB",
			}},
		{"work_mem divides what the user's shared_buffers and max_connections leave",
			SizingInput{Memory: 8 * engines.GiB, Connections: 201, Warehouses: 100, Storage: 50 * engines.GiB, SharedBuffers: 4 * engines.GiB, MaxConnections: 1000},
			map[string]string{
				"shared_buffers": "2GB", "effective_cache_size": "6GB", "maintenance_work_mem": "512MB",
				// (8 GiB − 4 GiB) / (1000 × 3) = 1 398 engines.KiB
				"work_mem": "1398kB", "max_connections": "221", "max_wal_size": "2109MB",
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Size(tc.in).Parameters()
			if !maps.Equal(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestFormatSize(t *testing.T) {
	for bytes, want := range map[int64]string{
		2 * engines.GiB: "2GB", 1536 * engines.MiB: "1536MB", 64 * engines.KiB: "64kB", 100: "1kB", 3 << 40: "3TB", 9489 * engines.KiB: "9489kB",
	} {
		if got := FormatSize(bytes); got != want {
			t.Errorf("FormatSize(%d) = %s, want %s", bytes, got, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"2GB", 2 * engines.GiB, true}, {"512MB", 512 * engines.MiB, true}, {"64kB", 64 * engines.KiB, true}, {"16384", 16384 * 8 * engines.KiB, true},
		{" 1 GB ", engines.GiB, true}, {"1gb", 0, false}, {"GB", 0, false}, {"", 0, false}, {"1.5GB", 0, false},
	}
	for _, tc := range cases {
		got, ok := ParseSize(tc.in, 8*engines.KiB)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseSize(%q) = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
