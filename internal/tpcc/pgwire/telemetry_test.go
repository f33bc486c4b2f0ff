package pgwire

import (
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPGCheckpointsSQLByVersion(t *testing.T) {
	for _, tc := range []struct {
		version int
		want    string
	}{
		{150018, "FROM pg_stat_bgwriter"}, {160004, "checkpoints_req"}, {170000, "FROM pg_stat_checkpointer"}, {180001, "num_done"},
	} {
		sql := pgCheckpointsSQL(tc.version)
		if !strings.Contains(sql, tc.want) || !strings.Contains(sql, "backend_type = 'checkpointer'") {
			t.Errorf("version %d: %q lacks %q or the checkpointer's state", tc.version, sql, tc.want)
		}
	}
}

func TestCheckpointsStarted(t *testing.T) {
	for _, tc := range []struct {
		completed   int64
		before, now bool
		want        int64
		name        string
	}{
		{0, false, false, 0, "idle"},
		{0, false, true, 1, "started, still running"},
		{1, false, false, 1, "started and completed in the interval"},
		{1, true, false, 0, "completed one started earlier"},
		{0, true, true, 0, "still running since before"},
		{2, true, true, 2, "one finished from before, one started and finished, one started"},
		{0, true, false, 0, "counter not yet visible: never negative"},
	} {
		if got := checkpointsStarted(tc.completed, tc.before, tc.now); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestLSNAgeAndPrune(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := []lsnSample{{t0, 100}, {t0.Add(time.Second), 200}, {t0.Add(2 * time.Second), 300}}
	now := t0.Add(3 * time.Second)
	for _, tc := range []struct {
		pos  int64
		want time.Duration
	}{
		{50, 3 * time.Second}, {100, 2 * time.Second}, {250, time.Second}, {300, 0}, {400, 0},
	} {
		if got := lsnAge(h, tc.pos, now); got != tc.want {
			t.Errorf("lsnAge(%d) = %v, want %v", tc.pos, got, tc.want)
		}
	}
	if got := pruneLSNHistory(h, 200); len(got) != 1 || got[0].lsn != 300 {
		t.Errorf("prune at 200 kept %+v, want only the 300 sample", got)
	}
	if got := pruneLSNHistory(h, 150); len(got) != 2 || got[0].lsn != 200 {
		t.Errorf("prune at 150 kept %+v", got)
	}
	if got := pruneLSNHistory(h, 1000); len(got) != 1 {
		t.Errorf("prune beyond the head kept %+v, want the latest", got)
	}
}

func TestPGTelemetryConversion(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := &pgRaw{at: t0, walLSN: 1000, dbSize: 10, commits: 100, rollbacks: 1, checkpointsTimed: 5, ckptReq: 2,
		standbys: []pgStandbyRow{{name: "s1", replay: 1000, write: 1000, flush: 1000}, {name: "s2", replay: 900, write: 1000, flush: 1000, replLag: 0.5}}}
	first := pgTelemetry(nil, prev, nil, []lsnSample{{t0, 1000}})
	if first.WALBytesPerSecond != nil || first.Checkpoints != nil || *first.DatabaseBytes != 10 || len(first.Standbys) != 2 {
		t.Fatalf("first sample: %+v (rates need a previous sample)", first)
	}
	cur := &pgRaw{at: t0.Add(10 * time.Second), walLSN: 51000, dbSize: 20, commits: 600, rollbacks: 3, checkpointsTimed: 5, ckptReq: 3,
		checkpointing: true,
		standbys: []pgStandbyRow{
			{name: "s1", state: "streaming", syncState: "quorum", write: 51000, flush: 51000, replay: 50000, writeLag: 0.001, flushLag: 0.002, replLag: 0.01},
			{name: "s2", state: "streaming", syncState: "quorum", write: 51000, flush: 51000, replay: 900, replLag: 0.5},
		},
		waits: []pgWaitRow{{"IPC", "SyncRep", 7}, {"Lock", "transactionid", 3}, {"LWLock", "WALWrite", 1}, {"IO", "DataFileRead", 2}, {"", "", 4}}}
	history := []lsnSample{{t0, 1000}, {cur.at, 51000}}
	tel := pgTelemetry(prev, cur, first, history)
	if !near(*tel.WALBytesPerSecond, 5000) || !near(*tel.CommitsPerSecond, 50) || !near(*tel.RollbacksPerSecond, 0.2) {
		t.Errorf("rates: WAL %v commits %v rollbacks %v", *tel.WALBytesPerSecond, *tel.CommitsPerSecond, *tel.RollbacksPerSecond)
	}
	// One completed in between (it started and ended between the samples) and one runs now: two started.
	if c := *tel.Checkpoints; c.Timed != 0 || c.Requested != 1 || c.Started != 2 || !c.InProgress || c.Done != nil {
		t.Errorf("checkpoints %+v", c)
	}
	s := tel.Sessions
	if s.Active != 17 || s.SyncRep != 7 || s.Lock != 3 || s.LWLock != 1 || s.IO != 2 || s.ByWaitEvent["CPU"] != 4 || s.ByWaitEvent["IPC:SyncRep"] != 7 {
		t.Errorf("sessions %+v", s)
	}
	s1, s2 := tel.Standbys[0], tel.Standbys[1]
	// s1 replayed up to 50000, which the primary passed by the sample at cur.at: age 0; PostgreSQL says 10 ms.
	if s1.Name != "s1" || s1.SyncState != "quorum" || !near(s1.ReplayLagSeconds, 0.01) || s1.ReplayLagBytes != 1000 || !near(s1.WriteLagSeconds, 0.001) {
		t.Errorf("s1 %+v", s1)
	}
	// s2 is stuck at 900 with WAL pending: the first sample beyond 900 is t0 (10 s ago), and the
	// previous lag (0.5 s) plus 10 s is larger still.
	if !near(s2.ReplayLagSeconds, 10.5) || s2.ReplayLagBytes != 50100 {
		t.Errorf("s2 %+v, want replay lag 10.5 s (stuck position keeps ageing)", s2)
	}
	worst, ok := tel.MaxReplayLag()
	if !ok || worst.Name != "s2" {
		t.Errorf("MaxReplayLag %+v", worst)
	}
	// A role without pg_read_all_stats sees the walsenders but not their positions: the lags are
	// unknown, never the time since the first sample that a position of 0 would give.
	hidden := *cur
	hidden.at = cur.at.Add(10 * time.Second)
	hidden.standbys = []pgStandbyRow{{name: "s1", hidden: true}, cur.standbys[1]}
	h := pgTelemetry(cur, &hidden, tel, history)
	if h1 := h.Standbys[0]; !h1.Hidden || h1.ReplayLagSeconds != 0 || h1.ReplayLagBytes != 0 {
		t.Errorf("hidden s1 %+v, want Hidden and no figures", h1)
	}
	if worst, ok := h.MaxReplayLag(); !ok || worst.Name != "s2" {
		t.Errorf("MaxReplayLag with s1 hidden: %+v", worst)
	}
	// A counter that went back (server restart) gives no rate rather than a negative one.
	restarted := *cur
	restarted.at, restarted.commits = cur.at.Add(time.Second), 5
	if r := pgTelemetry(cur, &restarted, tel, history); r.CommitsPerSecond != nil {
		t.Errorf("rate across a reset: %v", *r.CommitsPerSecond)
	}
}

func TestCRDBTelemetry(t *testing.T) {
	for _, sql := range []string{crdbLivenessSQL, crdbStoresSQL, crdbNodesSQL} {
		if !strings.Contains(sql, "crdb_internal.") || !strings.Contains(sql, "ORDER BY node_id") {
			t.Errorf("query %q does not read crdb_internal ordered by node", sql)
		}
	}
	for _, metric := range []string{"'replicas.leaders'", "'replicas.leaseholders'", "'ranges.underreplicated'", "'ranges.unavailable'", "'livebytes'"} {
		if !strings.Contains(crdbStoresSQL, metric) {
			t.Errorf("stores query lacks %s", metric)
		}
	}
	for _, metric := range []string{"'sql.txn.commit.count'", "'sql.txn.rollback.count'", "'sys.cpu.combined.percent-normalized'"} {
		if !strings.Contains(crdbNodesSQL, metric) {
			t.Errorf("nodes query lacks %s", metric)
		}
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := &crdbRaw{at: t0, nodes: []crdbNodeRow{{node: 1, commits: 1000}, {node: 2, commits: 500, rollbacks: 10}}}
	cur := &crdbRaw{at: t0.Add(10 * time.Second),
		liveness: []crdbLivenessRow{{2, true}, {1, true}, {3, false}},
		stores: []crdbStoreRow{{node: 1, replicas: 30, leaders: 10, leaseholders: 11, used: 1 << 20, live: 1000},
			{node: 2, replicas: 30, leaders: 20, leaseholders: 19, underReplicated: 4, unavail: 1, live: 2000}},
		nodes: []crdbNodeRow{{node: 1, commits: 3000, cpuFraction: 0.75}, {node: 2, commits: 1500, rollbacks: 20, cpuFraction: 0.5}}}
	tel := crdbTelemetry(prev, cur)
	if len(tel.Nodes) != 3 || tel.Nodes[0].ID != 1 || tel.Nodes[2].ID != 3 || *tel.Nodes[2].Live || tel.Nodes[2].Replicas != nil {
		t.Fatalf("nodes %+v", tel.Nodes)
	}
	n1 := tel.Nodes[0]
	if *n1.Leaders != 10 || *n1.Leaseholders != 11 || !near(*n1.CPUPercent, 75) || *n1.UsedBytes != 1<<20 || !*n1.Live {
		t.Errorf("node 1 %+v", n1)
	}
	if tel.Ranges.UnderReplicated != 4 || tel.Ranges.Unavailable != 1 || *tel.DatabaseBytes != 3000 {
		t.Errorf("ranges %+v, live bytes %d", tel.Ranges, *tel.DatabaseBytes)
	}
	if !near(*tel.CommitsPerSecond, 300) || !near(*tel.RollbacksPerSecond, 1) {
		t.Errorf("commits %v rollbacks %v per second", *tel.CommitsPerSecond, *tel.RollbacksPerSecond)
	}
	if tel.Standbys != nil || tel.WALBytesPerSecond != nil || tel.Checkpoints != nil {
		t.Errorf("CockroachDB has no standbys, WAL position or checkpoints: %+v", tel)
	}
}
