package postgres

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// PostgreSQL figures.
const (
	// ConnectionHeadroom is added to the clients' connections in max_connections: the 3
	// superuser_reserved_connections, CloudNativePG's instance manager (probes, the metrics
	// exporter, pg_rewind/pg_basebackup), and a person's psql.
	ConnectionHeadroom = 20
	// MinMaxConnections is PostgreSQL's default; sizing never lowers it.
	MinMaxConnections = 100
	// MaxMaxConnections keeps max_connections, autovacuum workers, background workers and
	// walsenders under PostgreSQL's limit of 262143 backends, above which it does not start.
	MaxMaxConnections = 260_000
	// WorkMemOperations is how many sort or hash operations each connection is assumed to run at
	// once when dividing the memory left after shared_buffers into work_mem.
	WorkMemOperations = 3
	// MinWorkMem is PostgreSQL's minimum work_mem.
	MinWorkMem = 64 * engines.KiB
	// MaintenanceWorkMemDivisor: maintenance_work_mem is memory/16 (autovacuum's three workers may
	// each hold it), between MinMaintenanceWorkMem and MaxMaintenanceWorkMem.
	MaintenanceWorkMemDivisor = 16
	MinMaintenanceWorkMem     = 1 * engines.MiB // PostgreSQL's minimum
	MaxMaintenanceWorkMem     = 2 * engines.GiB
	// WALBytesPerWarehouseSecond estimates the WAL one active warehouse writes per second under the
	// TPC-C mix with keying and think times, full-page images included: an estimate, not a
	// measurement on production hardware (docs/api.md's illustrative status shows 2.1 MB/s at 100
	// active warehouses, 21 KiB/s each), rounded up. The recorded steps' telemetry.walBytesPerSecond
	// shows the real rate.
	WALBytesPerWarehouseSecond = 24 * engines.KiB
	// CheckpointTimeoutSeconds is PostgreSQL's default checkpoint_timeout (5 min), left as it is.
	CheckpointTimeoutSeconds = 300
	// WALCheckpointFactor: max_wal_size holds this many checkpoint_timeouts of WAL, so a
	// checkpoint is requested by size only at three times the estimated rate (PostgreSQL starts
	// one when the WAL since the last reaches about max_wal_size / (1 + checkpoint_completion_target)).
	WALCheckpointFactor = 3
	// MinMaxWALSize is PostgreSQL's default max_wal_size; sizing never lowers it.
	MinMaxWALSize = 1 * engines.GiB
	// WALStorageDivisor caps max_wal_size at a quarter of the data volume, which also holds the WAL.
	WALStorageDivisor = 4
)

// SizingInput is what the settings are sized from.
type SizingInput struct {
	// Memory per instance or node, in bytes (> 0).
	Memory int64
	// MemoryRequest is the memory request when one is set (0: none): CloudNativePG rejects a
	// Cluster whose shared_buffers exceed it, so shared_buffers never does.
	MemoryRequest int64
	// Connections is the most client connections the run's Jobs open at once (PostgreSQL).
	Connections int
	// Warehouses is the loaded warehouse count: steps activate at most this many.
	Warehouses int
	// Storage is each instance's data volume, in bytes; 0 leaves max_wal_size uncapped.
	Storage int64
	// SharedBuffers and MaxConnections the user set (0: sized), which work_mem is divided by.
	SharedBuffers  int64
	MaxConnections int
}

// Sizing holds PostgreSQL's sized settings; sizes in bytes.
type Sizing struct {
	SharedBuffers      int64
	EffectiveCacheSize int64
	MaintenanceWorkMem int64
	WorkMem            int64
	MaxWALSize         int64
	MaxConnections     int
}

// Size sizes PostgreSQL's memory settings, max_wal_size and max_connections.
func Size(in SizingInput) Sizing {
	var s Sizing
	s.SharedBuffers = engines.RoundDown(in.Memory*engines.CacheSharePercent/100, engines.MiB)
	if in.MemoryRequest > 0 {
		s.SharedBuffers = min(s.SharedBuffers, engines.RoundDown(in.MemoryRequest, engines.MiB))
	}
	s.SharedBuffers = max(s.SharedBuffers, 128*engines.KiB)
	s.EffectiveCacheSize = max(engines.RoundDown(in.Memory*engines.EffectiveCacheSharePercent/100, engines.MiB), 8*engines.KiB)
	s.MaintenanceWorkMem = engines.RoundDown(min(max(in.Memory/MaintenanceWorkMemDivisor, MinMaintenanceWorkMem), MaxMaintenanceWorkMem), engines.MiB)
	s.MaxConnections = MaxConnections(in.Connections)
	buffers, connections := s.SharedBuffers, s.MaxConnections
	if in.SharedBuffers > 0 {
		buffers = in.SharedBuffers
	}
	if in.MaxConnections > 0 {
		connections = in.MaxConnections
	}
	s.WorkMem = max(engines.RoundDown((in.Memory-buffers)/int64(connections*WorkMemOperations), engines.KiB), MinWorkMem)
	wal := int64(in.Warehouses) * WALBytesPerWarehouseSecond * CheckpointTimeoutSeconds * WALCheckpointFactor
	if in.Storage > 0 {
		wal = min(wal, in.Storage/WALStorageDivisor)
	}
	s.MaxWALSize = max(engines.RoundDown(wal, engines.MiB), MinMaxWALSize)
	return s
}

// Parameters renders the sizing as postgresql.conf values, in units PostgreSQL accepts.
func (s Sizing) Parameters() map[string]string {
	return map[string]string{
		"shared_buffers":       FormatSize(s.SharedBuffers),
		"effective_cache_size": FormatSize(s.EffectiveCacheSize),
		"maintenance_work_mem": FormatSize(s.MaintenanceWorkMem),
		"work_mem":             FormatSize(s.WorkMem),
		"max_wal_size":         FormatSize(s.MaxWALSize),
		"max_connections":      fmt.Sprint(s.MaxConnections),
	}
}

// FormatSize renders bytes in the largest of PostgreSQL's units (engines.KiB, MB, GB, TB; powers of
// 1024) that divides them exactly; sizes below a kB round up to 1kB.
func FormatSize(bytes int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TB"}, {engines.GiB, "GB"}, {engines.MiB, "MB"}} {
		if bytes >= u.size && bytes%u.size == 0 {
			return fmt.Sprintf("%d%s", bytes/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dkB", max((bytes+engines.KiB-1)/engines.KiB, 1))
}

// ParseSize reads a PostgreSQL memory setting: an integer with an optional unit (B, engines.KiB,
// MB, GB, TB), or without a unit in the setting's own (blockSize bytes: 8 engines.KiB for shared_buffers).
func ParseSize(value string, blockSize int64) (int64, bool) {
	value = strings.TrimSpace(value)
	i := strings.IndexFunc(value, func(r rune) bool { return r < '0' || r > '9' })
	if i == 0 {
		return 0, false
	}
	number, unit := value, ""
	if i > 0 {
		number, unit = value[:i], strings.TrimSpace(value[i:])
	}
	n, err := strconv.ParseInt(number, 10, 64)
	if err != nil {
		return 0, false
	}
	multiplier := map[string]int64{"": blockSize, "B": 1, "kB": engines.KiB, "MB": engines.MiB, "GB": engines.GiB, "TB": 1 << 40}
	m, ok := multiplier[unit]
	if !ok {
		return 0, false
	}
	return n * m, true
}
