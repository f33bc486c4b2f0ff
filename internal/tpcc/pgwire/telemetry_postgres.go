package pgwire

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// PostgreSQL telemetry: one connection to the primary, four short reads per interval.
const (
	// pgTelemetryDatabaseSQL: WAL position (bytes since 0/0), database size, commit and rollback
	// counters of the benchmark database.
	pgTelemetryDatabaseSQL = `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint, pg_database_size(current_database()),
       xact_commit, xact_rollback
  FROM pg_stat_database WHERE datname = current_database()`
	// pgTelemetryReplicationSQL: every walsender's standby, positions as bytes since 0/0 and the
	// lag columns in seconds (NULL, i.e. 0, once a standby has caught up and is idle).
	pgTelemetryReplicationSQL = `SELECT application_name, coalesce(state, ''), coalesce(sync_state, ''),
       coalesce((write_lsn - '0/0'::pg_lsn)::bigint, 0), coalesce((flush_lsn - '0/0'::pg_lsn)::bigint, 0),
       coalesce((replay_lsn - '0/0'::pg_lsn)::bigint, 0),
       coalesce(extract(epoch FROM write_lag), 0)::float8, coalesce(extract(epoch FROM flush_lag), 0)::float8,
       coalesce(extract(epoch FROM replay_lag), 0)::float8, replay_lsn IS NULL AND pid IS NOT NULL
  FROM pg_stat_replication ORDER BY application_name`
	// Checkpoints started, by kind: pg_stat_bgwriter up to PostgreSQL 16, pg_stat_checkpointer
	// (with the completed count) from 17 on.
	// Both count a checkpoint when it completes; the checkpointer being busy (not idle in its
	// main loop) tells one is running, so a checkpoint is placed in the interval it started in.
	pgCheckpointsBgwriterSQL     = `SELECT checkpoints_timed, checkpoints_req, NULL::bigint, ` + pgCheckpointerBusySQL + ` FROM pg_stat_bgwriter`
	pgCheckpointsCheckpointerSQL = `SELECT num_timed, num_requested, num_done, ` + pgCheckpointerBusySQL + ` FROM pg_stat_checkpointer`
	pgCheckpointerBusySQL        = `EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'checkpointer'
       AND coalesce(wait_event, '') <> 'CheckpointerMain')`
	// pgTelemetrySessionsSQL: the active client sessions by wait event (none: on CPU).
	pgTelemetrySessionsSQL = `SELECT coalesce(wait_event_type, ''), coalesce(wait_event, ''), count(*)
  FROM pg_stat_activity
 WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid()
 GROUP BY 1, 2`
)

// pgCheckpointsSQL returns the checkpoint query of a server version (server_version_num).
func pgCheckpointsSQL(versionNum int) string {
	if versionNum >= 170000 {
		return pgCheckpointsCheckpointerSQL
	}
	return pgCheckpointsBgwriterSQL
}

// pgRaw is one reading of the cumulative and point-in-time figures.
type pgRaw struct {
	at                        time.Time
	walLSN, dbSize            int64
	commits, rollbacks        int64
	checkpointsTimed, ckptReq int64
	checkpointsDone           *int64
	checkpointing             bool // a checkpoint is running at the sample
	standbys                  []pgStandbyRow
	waits                     []pgWaitRow
}

type pgStandbyRow struct {
	name, state, syncState      string
	write, flush, replay        int64   // positions, bytes since 0/0
	writeLag, flushLag, replLag float64 // seconds, as pg_stat_replication reports them
	// hidden: PostgreSQL shows this role the walsender but not its positions (it lacks
	// pg_read_all_stats, e.g. through pg_monitor): no lag can be told.
	hidden bool
}

type pgWaitRow struct {
	typ, event string
	n          int
}

// lsnSample is the primary's WAL position at a moment.
type lsnSample struct {
	at  time.Time
	lsn int64
}

// lsnAge is how long ago the primary's WAL passed pos, as far as the samples in history (in time
// order, the latest last) tell: now minus the time of the first sample already beyond pos, a
// lower bound of the true age; 0 when no sample is beyond pos (the standby is at the head).
func lsnAge(history []lsnSample, pos int64, now time.Time) time.Duration {
	for _, s := range history {
		if s.lsn > pos {
			return max(now.Sub(s.at), 0)
		}
	}
	return 0
}

// pruneLSNHistory drops the samples no standby position can need any more: those at or below
// the lowest position (the first sample beyond each position is what lsnAge reads).
func pruneLSNHistory(history []lsnSample, lowest int64) []lsnSample {
	n := 0
	for n < len(history)-1 && history[n].lsn <= lowest {
		n++
	}
	return history[n:]
}

// pgTelemetry converts two consecutive readings (prev nil for the first) into one interval's
// telemetry; history holds the WAL positions seen so far, cur's included.
//
// A standby's lag is the largest of three lower bounds of the age of the WAL position it has
// reached: PostgreSQL's lag column; the age of the first sampled primary position beyond it
// (lsnAge); and, when the position has not moved since the previous sample while WAL is
// pending, the previous lag plus the time between the samples (the WAL it stopped at keeps
// ageing; PostgreSQL's column freezes once no reply crosses a new position).
func pgTelemetry(prev, cur *pgRaw, prevTel *snapshot.Telemetry, history []lsnSample) *snapshot.Telemetry {
	t := &snapshot.Telemetry{SampledAt: cur.at, Engine: postgresName}
	size := cur.dbSize
	t.DatabaseBytes = &size
	prevRows, prevLags := map[string]pgStandbyRow{}, map[string]snapshot.Standby{}
	if prev != nil && prevTel != nil {
		for _, s := range prev.standbys {
			prevRows[s.name] = s
		}
		for _, s := range prevTel.Standbys {
			prevLags[s.Name] = s
		}
	}
	for _, s := range cur.standbys {
		if s.hidden { // a position of 0 would read as a lag since the first sample
			t.Standbys = append(t.Standbys, snapshot.Standby{Name: s.name, Hidden: true})
			continue
		}
		p, seen := prevRows[s.name]
		pl := prevLags[s.name]
		sec := func(pgLag float64, pos, prevPos int64, prevLag float64) float64 {
			lag := max(pgLag, lsnAge(history, pos, cur.at).Seconds())
			if seen && pos == prevPos && cur.walLSN > pos {
				lag = max(lag, prevLag+cur.at.Sub(prev.at).Seconds())
			}
			return lag
		}
		t.Standbys = append(t.Standbys, snapshot.Standby{Name: s.name, State: s.state, SyncState: s.syncState,
			WriteLagSeconds:  sec(s.writeLag, s.write, p.write, pl.WriteLagSeconds),
			FlushLagSeconds:  sec(s.flushLag, s.flush, p.flush, pl.FlushLagSeconds),
			ReplayLagSeconds: sec(s.replLag, s.replay, p.replay, pl.ReplayLagSeconds),
			ReplayLagBytes:   max(cur.walLSN-s.replay, 0)})
	}
	sessions := &snapshot.Sessions{ByWaitEvent: map[string]int{}}
	for _, w := range cur.waits {
		sessions.Active += w.n
		key := "CPU"
		if w.typ != "" {
			key = w.typ + ":" + w.event
		}
		sessions.ByWaitEvent[key] += w.n
		switch {
		case w.typ == "IPC" && w.event == "SyncRep":
			sessions.SyncRep += w.n
		case w.typ == "Lock":
			sessions.Lock += w.n
		case w.typ == "LWLock":
			sessions.LWLock += w.n
		case w.typ == "IO":
			sessions.IO += w.n
		}
	}
	t.Sessions = sessions
	if prev == nil {
		return t
	}
	dt := cur.at.Sub(prev.at)
	t.WALBytesPerSecond = tpcc.PerSecond(prev.walLSN, cur.walLSN, dt)
	t.CommitsPerSecond = tpcc.PerSecond(prev.commits, cur.commits, dt)
	t.RollbacksPerSecond = tpcc.PerSecond(prev.rollbacks, cur.rollbacks, dt)
	t.Checkpoints = &snapshot.Checkpoints{Timed: tpcc.Delta(prev.checkpointsTimed, cur.checkpointsTimed), Requested: tpcc.Delta(prev.ckptReq, cur.ckptReq),
		InProgress: cur.checkpointing}
	t.Checkpoints.Started = checkpointsStarted(t.Checkpoints.Timed+t.Checkpoints.Requested, prev.checkpointing, cur.checkpointing)
	if prev.checkpointsDone != nil && cur.checkpointsDone != nil {
		d := tpcc.Delta(*prev.checkpointsDone, *cur.checkpointsDone)
		t.Checkpoints.Done = &d
	}
	return t
}

// checkpointsStarted is how many checkpoints started between two samples, from the number that
// completed in between and whether one was running at each sample (one runs at a time): those
// completed, minus one already running at the previous sample, plus one running now.
func checkpointsStarted(completed int64, runningBefore, runningNow bool) int64 {
	n := completed
	if runningBefore {
		n--
	}
	if runningNow {
		n++
	}
	return max(n, 0)
}

// pgTelemetrySampler samples a PostgreSQL primary over one connection.
type pgTelemetrySampler struct {
	conn           *pgx.Conn
	checkpointsSQL string
	prev           *pgRaw
	prevTel        *snapshot.Telemetry
	history        []lsnSample
}

func newPGTelemetry(ctx context.Context, url string) (*pgTelemetrySampler, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("--telemetry: --url: cannot connect: %s", snapshot.RedactCredentials(err.Error()))
	}
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("--telemetry: read server version: %w", err)
	}
	return &pgTelemetrySampler{conn: conn, checkpointsSQL: pgCheckpointsSQL(version)}, nil
}

func (p *pgTelemetrySampler) Close() { p.conn.Close(context.Background()) }

// pgSettingsSQL lists the settings not at their built-in default: from the configuration file,
// the command line, ALTER SYSTEM/DATABASE/ROLE. Values a session set for itself (the driver's
// client_encoding, application_name) and those initdb fixes ("override") are left out, and so
// are connection strings, which may hold a password. $1 names settings to list whatever their
// source (those the run asked for). Values are as SHOW prints them, in the units a
// postgresql.conf takes (shared_buffers 1GB, not 131072 pages of 8kB).
const pgSettingsSQL = `SELECT name, current_setting(name) FROM pg_settings
WHERE (source NOT IN ('default', 'override', 'client', 'session') OR name = ANY($1::text[]))
  AND name NOT IN ('primary_conninfo', 'restore_command', 'archive_command', 'archive_cleanup_command', 'recovery_end_command')
ORDER BY name`

func (p *pgTelemetrySampler) Settings(ctx context.Context, names []string) (map[string]string, error) {
	if names == nil {
		names = []string{}
	}
	rows, err := p.conn.Query(ctx, pgSettingsSQL, names)
	if err != nil {
		return nil, fmt.Errorf("pg_settings: %w", err)
	}
	type kv struct{ name, value string }
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (kv, error) {
		var s kv
		return s, row.Scan(&s.name, &s.value)
	})
	if err != nil {
		return nil, fmt.Errorf("pg_settings: %w", err)
	}
	out := make(map[string]string, len(list))
	for _, s := range list {
		out[s.name] = snapshot.RedactCredentials(s.value)
	}
	return out, nil
}

func (p *pgTelemetrySampler) Sample(ctx context.Context) *snapshot.Telemetry {
	cur, err := p.read(ctx)
	if err != nil {
		return tpcc.FailedSample(postgresName, time.Now(), err)
	}
	p.history = append(p.history, lsnSample{at: cur.at, lsn: cur.walLSN})
	t := pgTelemetry(p.prev, cur, p.prevTel, p.history)
	lowest := cur.walLSN
	for _, s := range cur.standbys {
		if s.hidden {
			continue
		}
		lowest = min(lowest, s.write, s.flush, s.replay)
	}
	p.history = pruneLSNHistory(p.history, lowest)
	p.prev, p.prevTel = cur, t
	return t
}

func (p *pgTelemetrySampler) read(ctx context.Context) (*pgRaw, error) {
	r := &pgRaw{}
	if err := p.conn.QueryRow(ctx, pgTelemetryDatabaseSQL).Scan(&r.walLSN, &r.dbSize, &r.commits, &r.rollbacks); err != nil {
		return nil, fmt.Errorf("pg_stat_database: %w", err)
	}
	r.at = time.Now()
	if err := p.conn.QueryRow(ctx, p.checkpointsSQL).Scan(&r.checkpointsTimed, &r.ckptReq, &r.checkpointsDone, &r.checkpointing); err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	rows, err := p.conn.Query(ctx, pgTelemetryReplicationSQL)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_replication: %w", err)
	}
	r.standbys, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (pgStandbyRow, error) {
		var s pgStandbyRow
		err := row.Scan(&s.name, &s.state, &s.syncState, &s.write, &s.flush, &s.replay, &s.writeLag, &s.flushLag, &s.replLag, &s.hidden)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("pg_stat_replication: %w", err)
	}
	rows, err = p.conn.Query(ctx, pgTelemetrySessionsSQL)
	if err != nil {
		return nil, fmt.Errorf("pg_stat_activity: %w", err)
	}
	r.waits, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (pgWaitRow, error) {
		var w pgWaitRow
		var n int64
		err := row.Scan(&w.typ, &w.event, &n)
		w.n = int(n)
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("pg_stat_activity: %w", err)
	}
	if r.walLSN < 0 {
		return nil, errors.New("pg_current_wal_lsn: negative position")
	}
	return r, nil
}
