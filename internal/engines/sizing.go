package engines

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Memory sizing: the settings each engine sizes from its pod's memory, computed the same way for all
// three so that a comparison measures engines, not configuration. docs/sizing.md gives the reasons
// for every figure below.

const (
	kB = int64(1) << 10
	mB = int64(1) << 20
	gB = int64(1) << 30
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
	MinWorkMem = 64 * kB
	// MaintenanceWorkMemDivisor: maintenance_work_mem is memory/16 (autovacuum's three workers may
	// each hold it), between MinMaintenanceWorkMem and MaxMaintenanceWorkMem.
	MaintenanceWorkMemDivisor = 16
	MinMaintenanceWorkMem     = 1 * mB // PostgreSQL's minimum
	MaxMaintenanceWorkMem     = 2 * gB
	// WALBytesPerWarehouseSecond estimates the WAL one active warehouse writes per second under the
	// TPC-C mix with keying and think times, full-page images included: an estimate, not a
	// measurement on production hardware (docs/api.md's illustrative status shows 2.1 MB/s at 100
	// active warehouses, 21 KiB/s each), rounded up. The recorded steps' telemetry.walBytesPerSecond
	// shows the real rate.
	WALBytesPerWarehouseSecond = 24 * kB
	// CheckpointTimeoutSeconds is PostgreSQL's default checkpoint_timeout (5 min), left as it is.
	CheckpointTimeoutSeconds = 300
	// WALCheckpointFactor: max_wal_size holds this many checkpoint_timeouts of WAL, so a
	// checkpoint is requested by size only at three times the estimated rate (PostgreSQL starts
	// one when the WAL since the last reaches about max_wal_size / (1 + checkpoint_completion_target)).
	WALCheckpointFactor = 3
	// MinMaxWALSize is PostgreSQL's default max_wal_size; sizing never lowers it.
	MinMaxWALSize = 1 * gB
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

// PostgresSizing holds PostgreSQL's sized settings; sizes in bytes.
type PostgresSizing struct {
	SharedBuffers      int64
	EffectiveCacheSize int64
	MaintenanceWorkMem int64
	WorkMem            int64
	MaxWALSize         int64
	MaxConnections     int
}

// SizePostgres sizes PostgreSQL's memory settings, max_wal_size and max_connections.
func SizePostgres(in SizingInput) PostgresSizing {
	var s PostgresSizing
	s.SharedBuffers = roundDown(in.Memory*CacheSharePercent/100, mB)
	if in.MemoryRequest > 0 {
		s.SharedBuffers = min(s.SharedBuffers, roundDown(in.MemoryRequest, mB))
	}
	s.SharedBuffers = max(s.SharedBuffers, 128*kB)
	s.EffectiveCacheSize = max(roundDown(in.Memory*EffectiveCacheSharePercent/100, mB), 8*kB)
	s.MaintenanceWorkMem = roundDown(min(max(in.Memory/MaintenanceWorkMemDivisor, MinMaintenanceWorkMem), MaxMaintenanceWorkMem), mB)
	s.MaxConnections = min(max(in.Connections+ConnectionHeadroom, MinMaxConnections), MaxMaxConnections)
	buffers, connections := s.SharedBuffers, s.MaxConnections
	if in.SharedBuffers > 0 {
		buffers = in.SharedBuffers
	}
	if in.MaxConnections > 0 {
		connections = in.MaxConnections
	}
	s.WorkMem = max(roundDown((in.Memory-buffers)/int64(connections*WorkMemOperations), kB), MinWorkMem)
	wal := int64(in.Warehouses) * WALBytesPerWarehouseSecond * CheckpointTimeoutSeconds * WALCheckpointFactor
	if in.Storage > 0 {
		wal = min(wal, in.Storage/WALStorageDivisor)
	}
	s.MaxWALSize = max(roundDown(wal, mB), MinMaxWALSize)
	return s
}

// Parameters renders the sizing as postgresql.conf values, in units PostgreSQL accepts.
func (s PostgresSizing) Parameters() map[string]string {
	return map[string]string{
		"shared_buffers":       PostgresSize(s.SharedBuffers),
		"effective_cache_size": PostgresSize(s.EffectiveCacheSize),
		"maintenance_work_mem": PostgresSize(s.MaintenanceWorkMem),
		"work_mem":             PostgresSize(s.WorkMem),
		"max_wal_size":         PostgresSize(s.MaxWALSize),
		"max_connections":      fmt.Sprint(s.MaxConnections),
	}
}

// PostgresSize renders bytes in the largest of PostgreSQL's units (kB, MB, GB, TB; powers of
// 1024) that divides them exactly; sizes below a kB round up to 1kB.
func PostgresSize(bytes int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TB"}, {gB, "GB"}, {mB, "MB"}} {
		if bytes >= u.size && bytes%u.size == 0 {
			return fmt.Sprintf("%d%s", bytes/u.size, u.name)
		}
	}
	return fmt.Sprintf("%dkB", max((bytes+kB-1)/kB, 1))
}

// ParsePostgresSize reads a PostgreSQL memory setting: an integer with an optional unit (B, kB,
// MB, GB, TB), or without a unit in the setting's own (blockSize bytes: 8 kB for shared_buffers).
func ParsePostgresSize(value string, blockSize int64) (int64, bool) {
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
	multiplier := map[string]int64{"": blockSize, "B": 1, "kB": kB, "MB": mB, "GB": gB, "TB": 1 << 40}
	m, ok := multiplier[unit]
	if !ok {
		return 0, false
	}
	return n * m, true
}

// CockroachSizing holds CockroachDB's --cache and --max-sql-memory, in bytes.
type CockroachSizing struct {
	Cache, MaxSQLMemory int64
}

// SizeCockroach gives CockroachDB's cache the share PostgreSQL's shared_buffers gets, and SQL
// memory its default share, both of the pod's memory rather than of the machine's.
func SizeCockroach(memory int64) CockroachSizing {
	return CockroachSizing{
		Cache:        roundDown(memory*CacheSharePercent/100, mB),
		MaxSQLMemory: roundDown(memory*SQLMemorySharePercent/100, mB),
	}
}

// CockroachSize renders bytes as CockroachDB's flags accept them (MiB, GiB).
func CockroachSize(bytes int64) string {
	if bytes >= gB && bytes%gB == 0 {
		return fmt.Sprintf("%dGiB", bytes/gB)
	}
	return fmt.Sprintf("%dMiB", bytes/mB)
}

// YDBHardLimit is YDB's memory_controller_config.hard_limit_bytes: the pod's memory. YDB's memory
// controller divides it among its shared cache, MemTables and queries by its own shares.
func YDBHardLimit(memory int64) int64 { return memory }

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

func roundDown(v, unit int64) int64 { return v / unit * unit }

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
