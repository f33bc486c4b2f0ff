package snapshot

import "time"

// Telemetry is the database's own signals for one interval, sampled at its end by the one client
// process of a step started with --telemetry (docs/telemetry.md lists, per engine, where each
// field comes from and which ones an engine has no equivalent for). Rates and counts "in the
// interval" are differences between this sample and the previous one; gauges are the value at
// the sample. A field an engine does not expose is absent.
type Telemetry struct {
	SampledAt time.Time `json:"sampledAt"`
	Engine    string    `json:"engine"`
	// Error says why this sample failed (credentials redacted); the other fields are then absent.
	Error string `json:"error,omitempty"`

	// CommitsPerSecond and RollbacksPerSecond are the database's own transaction rates over the
	// interval (all clients, not only this benchmark's).
	CommitsPerSecond   *float64 `json:"commitsPerSecond,omitempty"`
	RollbacksPerSecond *float64 `json:"rollbacksPerSecond,omitempty"`
	// DatabaseBytes is the size of the benchmark database (PostgreSQL: pg_database_size; the
	// distributed engines: the live bytes of its tables or of the cluster, see docs/telemetry.md).
	DatabaseBytes *int64 `json:"databaseBytes,omitempty"`

	// PostgreSQL.
	Standbys          []Standby    `json:"standbys,omitempty"`
	WALBytesPerSecond *float64     `json:"walBytesPerSecond,omitempty"`
	Checkpoints       *Checkpoints `json:"checkpoints,omitempty"`
	Sessions          *Sessions    `json:"sessions,omitempty"`

	// Distributed engines: one entry per node, and cluster-wide range health.
	Nodes  []Node       `json:"nodes,omitempty"`
	Ranges *RangeHealth `json:"ranges,omitempty"`
	// LocksBroken counts transactions' optimistic locks invalidated in the interval (YDB's
	// "transaction locks invalidated", the cause of its retried aborts).
	LocksBroken *int64 `json:"locksBroken,omitempty"`
	// Overloaded counts requests the engine rejected as overloaded in the interval (YDB).
	Overloaded *int64 `json:"overloaded,omitempty"`
}

// Standby is one streaming standby as the primary sees it (pg_stat_replication).
type Standby struct {
	Name      string `json:"name"`      // application_name
	State     string `json:"state"`     // streaming, catchup, …
	SyncState string `json:"syncState"` // sync, quorum, potential, async
	// Lags in seconds: the larger of PostgreSQL's write_lag/flush_lag/replay_lag and the age of
	// the primary's WAL position the standby has reached, as tracked by the sampler (PostgreSQL's
	// lag columns freeze while replay is paused; the tracked age keeps growing).
	WriteLagSeconds  float64 `json:"writeLagSeconds"`
	FlushLagSeconds  float64 `json:"flushLagSeconds"`
	ReplayLagSeconds float64 `json:"replayLagSeconds"`
	// ReplayLagBytes is the WAL the standby has not replayed yet.
	ReplayLagBytes int64 `json:"replayLagBytes"`
	// Hidden says the sampling role may see the standby but not its positions (it lacks
	// pg_read_all_stats, which pg_monitor grants): the lags are unknown, not zero.
	Hidden bool `json:"hidden,omitempty"`
}

// Checkpoints of the interval. Started counts those that began in it (the interval a checkpoint
// happened in); InProgress says one was running at the sample. Timed and Requested count, by
// kind, those PostgreSQL reported in the interval, which it does when a checkpoint completes
// (so a long checkpoint shows as started in one interval and by kind in a later one); Done
// (PostgreSQL 17+) counts the completed ones, skipped idle ones excluded.
type Checkpoints struct {
	Started    int64  `json:"started"`
	InProgress bool   `json:"inProgress"`
	Timed      int64  `json:"timed"`
	Requested  int64  `json:"requested"`
	Done       *int64 `json:"done,omitempty"`
}

// Sessions are the database's client sessions at the sample, by what they wait on.
type Sessions struct {
	Active  int `json:"active"`  // running a statement (state active)
	SyncRep int `json:"syncRep"` // waiting for the synchronous standbys (IPC SyncRep)
	Lock    int `json:"lock"`    // waiting on a heavyweight lock (wait type Lock)
	LWLock  int `json:"lwLock"`  // waiting on a lightweight lock
	IO      int `json:"io"`      // waiting on I/O
	// ByWaitEvent counts active sessions per "type:event" (e.g. "IPC:SyncRep"); "CPU" when none.
	ByWaitEvent map[string]int `json:"byWaitEvent,omitempty"`
}

// Node is one node of a distributed engine.
type Node struct {
	ID   int64 `json:"id"`
	Live *bool `json:"live,omitempty"`
	// Ranges (CockroachDB) or tablets/partitions (YDB) this node holds, and how many it leads.
	Replicas        *int64   `json:"replicas,omitempty"`
	Leaders         *int64   `json:"leaders,omitempty"`
	Leaseholders    *int64   `json:"leaseholders,omitempty"`
	UnderReplicated *int64   `json:"underReplicated,omitempty"`
	Unavailable     *int64   `json:"unavailable,omitempty"`
	CPUPercent      *float64 `json:"cpuPercent,omitempty"` // of the node's cores (CockroachDB)
	CPUCores        *float64 `json:"cpuCores,omitempty"`   // cores busy serving its partitions (YDB)
	UsedBytes       *int64   `json:"usedBytes,omitempty"`
}

// RangeHealth sums the nodes' range health.
type RangeHealth struct {
	UnderReplicated int64 `json:"underReplicated"`
	Unavailable     int64 `json:"unavailable"`
}

// MaxReplayLag returns the standby with the largest replay lag of t, ok false without standbys.
func (t *Telemetry) MaxReplayLag() (Standby, bool) {
	var worst Standby
	ok := false
	if t == nil {
		return worst, false
	}
	for _, s := range t.Standbys {
		if s.Hidden {
			continue
		}
		if !ok || s.ReplayLagSeconds > worst.ReplayLagSeconds {
			worst, ok = s, true
		}
	}
	return worst, ok
}
