package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// standbyURL is the URL of standby n (1 or 2) of hack/pg-sync.sh: the primary's port + n,
// database postgres.
func standbyURL(t *testing.T, primary string, n int) string {
	t.Helper()
	u, err := url.Parse(primary)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatalf("TPCC_PG_URL has no port: %v", err)
	}
	u.Host = net.JoinHostPort(u.Hostname(), strconv.Itoa(port+n))
	u.Path = "/postgres"
	return u.String()
}

func execSQL(t *testing.T, u, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Errorf("%s: %v", sql, err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Errorf("%s: %v", sql, err)
	}
}

// TestRunTimeSeriesAgainstPGSync runs 1 s intervals against hack/pg-sync.sh with the sessions'
// synchronous_commit = remote_write, pauses standby s1's replay part-way and forces a CHECKPOINT
// mid-interval, while an incremental reader collects the intervals over HTTP. It shows: s1's
// replay lag recorded and growing, the --max-replication-lag verdict naming s1, the checkpoint
// in the interval it happened in, each interval handed to the reader once, and the intervals
// adding up to the whole step exactly.
var memorySetting = regexp.MustCompile(`^[0-9]+(B|kB|MB|GB|TB)$`)

func TestRunTimeSeriesAgainstPGSync(t *testing.T) {
	u := loadedDatabase(t, 1)
	s1 := standbyURL(t, u, 1)
	runURL := u + "&synchronous_commit=remote_write"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	out := t.TempDir() + "/summary.json"
	t.Cleanup(func() { execSQL(t, s1, "SELECT pg_wal_replay_resume()") })
	// A timed checkpoint spread over most of checkpoint_timeout may be running on a long-lived
	// cluster: finish it now (and restart the timer), so the one forced mid-run stands alone.
	execSQL(t, u, "CHECKPOINT")

	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := runTPCC(t, 2*time.Minute, "run", "--engine", "postgres", "--url", runURL, "--warehouses", "1",
			"--wait", "none", "--ramp-up", "1s", "--duration", "6s", "--interval", "1s", "--telemetry",
			"--max-replication-lag", "1s", "--listen", addr, "--linger", "30s", "--summary-json", out)
		done <- result{code, stdout, stderr}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The origin of the series is known once the run starts.
	var origin time.Time
	for origin.IsZero() {
		if s, err := snapshot.Fetch(ctx, nil, base); err == nil && s.Intervals != nil {
			origin = s.Intervals.Origin
			break
		}
		select {
		case r := <-done:
			t.Fatalf("run ended before serving its series: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}

	var wg sync.WaitGroup
	var pausedAt, checkpointAt time.Time
	wg.Go(func() {
		time.Sleep(time.Until(origin.Add(2500 * time.Millisecond)))
		pausedAt = time.Now()
		execSQL(t, s1, "SELECT pg_wal_replay_pause()")
		time.Sleep(time.Until(origin.Add(4500 * time.Millisecond)))
		checkpointAt = time.Now()
		execSQL(t, u, "CHECKPOINT")
	})

	// The incremental reader: advance N to the last index received.
	after := -1
	got := map[int]int{}
	var items []snapshot.Interval
	var final *snapshot.Snapshot
	for {
		s, err := snapshot.FetchIntervalsAfter(ctx, nil, base, after)
		if err != nil {
			t.Fatal(err)
		}
		for _, iv := range s.Intervals.Items {
			got[iv.Index]++
			items = append(items, iv)
			after = iv.Index
		}
		if s.Phase == snapshot.PhaseDone || s.Phase == snapshot.PhaseFailed {
			final = s
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err := snapshot.Stop(ctx, nil, base); err != nil {
		t.Fatal(err)
	}
	r := <-done
	wg.Wait()
	t.Log(r.stdout)
	if final.Phase != snapshot.PhaseDone {
		t.Fatalf("phase %s: %s\n%s", final.Phase, final.Message, r.stderr)
	}
	// The sampling process read the server's non-default settings once: hack/pg-sync.sh sets the
	// synchronous standbys on the command line; nothing that may hold a password is there.
	if final.Server == nil || final.Server.SettingsError != "" || final.Server.Settings["synchronous_standby_names"] == "" {
		t.Errorf("server settings %+v, want synchronous_standby_names among them", final.Server)
	} else if _, ok := final.Server.Settings["primary_conninfo"]; ok {
		t.Errorf("server settings carry primary_conninfo")
	} else if sb := final.Server.Settings["shared_buffers"]; sb != "" && !memorySetting.MatchString(sb) {
		// As postgresql.conf takes it (1GB), not pg_settings' setting and unit run together
		// ("1310728kB" for 131072 pages of 8kB).
		t.Errorf("shared_buffers %q is not a size PostgreSQL shows", sb)
	}

	// Each interval once, none missing.
	if len(got) != final.Intervals.Sealed {
		t.Errorf("reader received %d distinct intervals, %d sealed", len(got), final.Intervals.Sealed)
	}
	for idx := range final.Intervals.Sealed {
		if got[idx] != 1 {
			t.Errorf("interval %d received %d times, want once", idx, got[idx])
		}
	}

	// The intervals add up to the whole step exactly.
	merged, err := snapshot.MergeIntervals([]*snapshot.Intervals{{LengthSeconds: 1, Items: items}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range snapshot.Transactions {
		var sum snapshot.TransactionCounts
		var samples int64
		for _, m := range merged {
			mt := m.Transactions[tx]
			sum.Commits += mt.Commits
			sum.Rollbacks += mt.Rollbacks
			sum.Errors += mt.Errors
			sum.Retries += mt.Retries
			samples += mt.Histogram.TotalCount()
		}
		whole := final.Transactions[tx]
		whole.Histogram = ""
		if sum != whole || samples != whole.Commits+whole.Rollbacks {
			t.Errorf("%s: intervals sum to %+v (%d samples), whole step %+v", tx, sum, samples, whole)
		}
	}

	// s1's replay lag grows once replay is paused; s2 keeps up.
	var s1Lags []float64
	var s2Max float64
	for _, iv := range items {
		tel := iv.Telemetry
		if tel == nil || tel.Error != "" {
			t.Errorf("interval %d has no telemetry: %+v", iv.Index, tel)
			continue
		}
		for _, s := range tel.Standbys {
			switch {
			case s.Name == "s1" && tel.SampledAt.After(pausedAt.Add(time.Second)):
				s1Lags = append(s1Lags, s.ReplayLagSeconds)
			case s.Name == "s2":
				s2Max = max(s2Max, s.ReplayLagSeconds)
			}
		}
	}
	t.Logf("s1 replay lag per interval after the pause: %v; s2 at most %.3fs", s1Lags, s2Max)
	if len(s1Lags) < 3 {
		t.Fatalf("only %d samples of s1 after the pause", len(s1Lags))
	}
	for i := 1; i < len(s1Lags); i++ {
		if s1Lags[i] <= s1Lags[i-1] {
			t.Errorf("s1 replay lag did not grow: %v", s1Lags)
			break
		}
	}
	if last := s1Lags[len(s1Lags)-1]; last < 2 {
		t.Errorf("s1 replay lag at the end %.2fs, want > 2s (paused for ~4.5s)", last)
	}
	if s2Max >= 1 {
		t.Errorf("s2 replay lag %.2fs, want < 1s (it was not paused)", s2Max)
	}

	// The checkpoint shows as started in the interval it was requested in, and only there.
	ckptIndex := int(checkpointAt.Sub(origin) / time.Second)
	var requested, completed int64
	var early []string
	missed := ""
	for _, iv := range items {
		tel := iv.Telemetry
		if tel == nil || tel.Checkpoints == nil {
			continue
		}
		c := *tel.Checkpoints
		requested += c.Requested
		completed += c.Timed + c.Requested
		if iv.Index == ckptIndex && c.Started < 1 {
			missed = fmt.Sprintf("interval %d (CHECKPOINT at +%.2fs): %+v, want >= 1 started", iv.Index, checkpointAt.Sub(origin).Seconds(), c)
		}
		if iv.Index < ckptIndex && c.Started != 0 {
			early = append(early, fmt.Sprintf("interval %d: %+v", iv.Index, c))
		}
	}
	// Before the CHECKPOINT nothing may be placed (a start reported early would be invented),
	// unless PostgreSQL itself counted another checkpoint: the server is shared with the other
	// packages' tests, whose DROP DATABASE requests one (make test once showed it in interval 1).
	// After it the checkpointer may still be seen busy (CI once showed it so in the last two
	// intervals of a run under full load), which the sampler reports as one in progress.
	// Ours may also wait for another one running when it was requested, and start later.
	switch {
	case missed != "" && completed <= 1:
		t.Error(missed)
	case missed != "":
		t.Logf("%s; PostgreSQL counted %d checkpoints in the step", missed, completed)
	}
	switch {
	case len(early) > 0 && completed <= 1:
		t.Errorf("%s started before the CHECKPOINT in interval %d, and PostgreSQL counted %d checkpoint(s) in the step", strings.Join(early, "; "), ckptIndex, completed)
	case len(early) > 0:
		t.Logf("another session's checkpoint (PostgreSQL counted %d in the step): %s", completed, strings.Join(early, "; "))
	}
	if requested < 1 {
		t.Errorf("no requested checkpoint reported by PostgreSQL in any interval")
	}
	t.Logf("CHECKPOINT at +%.2fs in interval %d", checkpointAt.Sub(origin).Seconds(), ckptIndex)

	// The verdict names the standby and its lag.
	if r.code != exitSLAFailed {
		t.Errorf("exit %d, want %d (replication lag over the bound); stderr %s", r.code, exitSLAFailed, r.stderr)
	}
	doc := readSummary(t, out)
	reason := strings.Join(doc.Verdict.Reasons, "; ")
	if !strings.Contains(reason, "standby s1 replay lag") || strings.Contains(reason, "standby s2") {
		t.Errorf("verdict reasons %q, want standby s1 named (and not s2)", reason)
	}
	if !strings.Contains(r.stdout, "replication lag: standby s1 replay lag") {
		t.Errorf("summary does not name s1:\n%s", r.stdout)
	}
	t.Logf("verdict: %s", reason)
}
