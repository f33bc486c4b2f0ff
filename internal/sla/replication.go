package sla

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// StandbyLag is the largest replay lag one standby showed during a step, and when.
type StandbyLag struct {
	Standby   string        `json:"standby"`
	ReplayLag time.Duration `json:"replayLag"`
	SampledAt time.Time     `json:"sampledAt"`
}

// MaxReplayLags returns, per standby (sorted by name), the largest replay lag over the samples
// of a step; nil samples and failed ones are skipped.
func MaxReplayLags(samples []*snapshot.Telemetry) []StandbyLag {
	worst := map[string]StandbyLag{}
	for _, t := range samples {
		if t == nil || t.Error != "" {
			continue
		}
		for _, s := range t.Standbys {
			if s.Hidden {
				continue
			}
			lag := time.Duration(s.ReplayLagSeconds * float64(time.Second))
			if w, ok := worst[s.Name]; !ok || lag > w.ReplayLag {
				worst[s.Name] = StandbyLag{Standby: s.Name, ReplayLag: lag, SampledAt: t.SampledAt}
			}
		}
	}
	out := make([]StandbyLag, 0, len(worst))
	for _, w := range worst {
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Standby < out[j].Standby })
	return out
}

// CheckNameReplicationLag names the replication check in a verdict.
const CheckNameReplicationLag = "replication lag"

// ReplicationEvidence is what a step's database samples show of its standbys: the input of
// ReplicationCheck and SyncStandbysCheck. Build it with ReplicationEvidenceOf (one process's
// samples) or ReplicationEvidenceOfSeries (a step's merged series).
type ReplicationEvidence struct {
	// Lags is each standby's largest replay lag over the samples that were read.
	Lags []StandbyLag
	// Hidden are standbys whose positions the sampling role could not read.
	Hidden []string
	// Samples counts the samples that were read; Failed those that failed (LastError says why).
	Samples, Failed int
	LastError       string
	// Absent counts, per standby that some sample reported, the read samples that did not: it
	// had left pg_stat_replication (disconnected, restarting, or gone).
	Absent map[string]int
	// MaxStandbys is the most standbys one sample reported; Expected how many the database is
	// configured with (0: not known).
	MaxStandbys, Expected int
	// NoSyncStreaming counts read samples in which no standby streamed as synchronous while the
	// database is configured with synchronous replicas (SyncConfigured).
	NoSyncStreaming int
	SyncConfigured  bool
}

// ReplicationCheck judges a step's standbys against maxLag (sla.maxReplicationLag, `tpcc run
// --max-replication-lag`). Missing data never passes:
//   - hidden positions fail it (the role lacks pg_monitor: every sample will be as blind);
//   - no sample read, or a sample that failed, makes it inconclusive (the lag of those
//     intervals is unknown);
//   - a standby that left pg_stat_replication during the step, or a configured standby that
//     never reported, has an unbounded lag: it fails, naming it;
//   - otherwise it fails when any standby's largest replay lag exceeds the bound, naming every
//     such standby and its lag, worst first, and passes when none does (or there is no standby
//     and none is configured).
func ReplicationCheck(e ReplicationEvidence, maxLag time.Duration) Check {
	ch := Check{Name: CheckNameReplicationLag}
	if len(e.Hidden) > 0 {
		// A bound that cannot be checked is not met: the step is not called compliant while the
		// replicas it counts on may be hours behind.
		ch.Status = Fail
		ch.Detail = fmt.Sprintf("replication lag: cannot be judged: the positions of standby %s are hidden from the benchmark's role (grant it pg_monitor)", strings.Join(e.Hidden, ", "))
		return ch
	}
	var over []string
	absent := make([]string, 0, len(e.Absent))
	for name := range e.Absent {
		absent = append(absent, name)
	}
	sort.Strings(absent)
	for _, name := range absent {
		if n := e.Absent[name]; n > 0 {
			over = append(over, fmt.Sprintf("standby %s left pg_stat_replication in %d of %d samples (lag unbounded)", name, n, e.Samples))
		}
	}
	if e.Expected > e.MaxStandbys && e.Samples > 0 {
		over = append(over, fmt.Sprintf("%d of %d configured standbys never reported (lag unbounded)", e.Expected-e.MaxStandbys, e.Expected))
	}
	sorted := append([]StandbyLag(nil), e.Lags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ReplayLag > sorted[j].ReplayLag })
	for _, l := range sorted {
		if l.ReplayLag > maxLag {
			over = append(over, fmt.Sprintf("standby %s replay lag %s", l.Standby, formatDuration(l.ReplayLag)))
		}
	}
	switch {
	case len(over) > 0:
		ch.Status = Fail
		ch.Detail = fmt.Sprintf("replication lag: %s > %s", strings.Join(over, ", "), formatDuration(maxLag))
	case e.Samples == 0:
		ch.Status, ch.Detail = Inconclusive, "replication lag: cannot be judged: no database telemetry sample was read"
		if e.LastError != "" {
			ch.Detail += " (last error: " + e.LastError + ")"
		}
	case e.Failed > 0:
		ch.Status = Inconclusive
		ch.Detail = fmt.Sprintf("replication lag: cannot be judged: %d of %d database samples failed, their intervals' lag is unknown (last error: %s)", e.Failed, e.Failed+e.Samples, e.LastError)
	case len(sorted) == 0:
		ch.Status, ch.Detail = Pass, "replication lag: no standby"
	default:
		ch.Status = Pass
		ch.Detail = fmt.Sprintf("replication lag: largest replay lag %s (standby %s) ≤ %s", formatDuration(sorted[0].ReplayLag), sorted[0].Standby, formatDuration(maxLag))
	}
	return ch
}

// CheckNameSyncStandbys names the synchronous-replication check in a verdict.
const CheckNameSyncStandbys = "synchronous standbys"

// SyncStandbysCheck applies to a database configured with synchronous replicas whatever the SLA
// says: a step in which some sample found no standby streaming as synchronous ran, at that
// moment, without the durability it claims, and is not compliant. It passes when every read
// sample found one; without synchronous replication it is absent (ok false).
func SyncStandbysCheck(e ReplicationEvidence) (Check, bool) {
	if !e.SyncConfigured || e.Samples == 0 {
		return Check{}, false
	}
	ch := Check{Name: CheckNameSyncStandbys, Status: Pass,
		Detail: fmt.Sprintf("synchronous standbys: at least one streaming in each of %d samples", e.Samples)}
	if e.NoSyncStreaming > 0 {
		ch.Status = Fail
		ch.Detail = fmt.Sprintf("synchronous standbys: none streaming in %d of %d samples: commits were not synchronously replicated then", e.NoSyncStreaming, e.Samples)
	}
	return ch, true
}

// ReplicationEvidenceOf gathers one process's samples (`tpcc run --telemetry`): nil samples are
// intervals without one; expected is the number of standbys configured (0: unknown).
func ReplicationEvidenceOf(samples []*snapshot.Telemetry, expected int, syncConfigured bool) ReplicationEvidence {
	e := ReplicationEvidence{Lags: MaxReplayLags(samples), Hidden: HiddenStandbys(samples), Expected: expected,
		SyncConfigured: syncConfigured, Absent: map[string]int{}}
	seen := map[string]bool{}
	for _, t := range samples {
		if t != nil && t.Error == "" {
			for _, s := range t.Standbys {
				seen[s.Name] = true
			}
		}
	}
	for _, t := range samples {
		switch {
		case t == nil:
			continue
		case t.Error != "":
			e.Failed++
			e.LastError = t.Error
			continue
		}
		e.Samples++
		e.MaxStandbys = max(e.MaxStandbys, len(t.Standbys))
		here := map[string]bool{}
		streaming := false
		for _, s := range t.Standbys {
			here[s.Name] = true
			streaming = streaming || (s.State == "streaming" && (s.SyncState == "sync" || s.SyncState == "quorum"))
		}
		for name := range seen {
			if !here[name] {
				e.Absent[name]++
			}
		}
		if !streaming {
			e.NoSyncStreaming++
		}
	}
	return e
}

// ReplicationEvidenceOfSeries gathers a step's merged series: the intervals for which include
// returns true (nil: all), expected standbys configured (0: unknown). A failed sample's error is
// not in the series; lastError is the one the caller kept.
func ReplicationEvidenceOfSeries(s snapshot.CompactSeries, include func(index int) bool, expected int, syncConfigured bool, lastError string) ReplicationEvidence {
	e := ReplicationEvidence{Hidden: s.HiddenStandbys, Expected: expected, SyncConfigured: syncConfigured, Absent: map[string]int{}}
	// Each entry counts its intervals' samples (a downsampled entry holds several: CompactSeries.Spans).
	for i, idx := range s.Index {
		if include != nil && !include(idx) {
			continue
		}
		if failed := s.FailedOf(i); failed > 0 {
			e.Failed += int(failed)
			e.LastError = lastError
		}
		read := s.ReadOf(i)
		if read == 0 || i >= len(s.Standbys) || s.Standbys[i] < 0 {
			continue // no sample read in this entry
		}
		e.Samples += int(read)
		e.MaxStandbys = max(e.MaxStandbys, int(s.Standbys[i]))
		e.NoSyncStreaming += int(s.NoSyncOf(i))
		for name := range s.ReplayLagMillis {
			if n := s.AbsentOf(name, i); n > 0 {
				e.Absent[name] += int(n)
			}
		}
	}
	worst := map[string]int64{}
	for name, col := range s.ReplayLagMillis {
		worst[name] = -1
		for i, idx := range s.Index {
			if include == nil || include(idx) {
				worst[name] = max(worst[name], col[i])
			}
		}
	}
	for name, w := range worst {
		if w >= 0 {
			e.Lags = append(e.Lags, StandbyLag{Standby: name, ReplayLag: time.Duration(w) * time.Millisecond})
		}
	}
	sort.Slice(e.Lags, func(i, j int) bool { return e.Lags[i].Standby < e.Lags[j].Standby })
	return e
}

// HiddenStandbys names, sorted, the standbys whose positions some sample could not read.
func HiddenStandbys(samples []*snapshot.Telemetry) []string {
	seen := map[string]bool{}
	for _, t := range samples {
		if t == nil {
			continue
		}
		for _, s := range t.Standbys {
			if s.Hidden {
				seen[s.Name] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// TelemetrySamples counts the samples that were read (not failed).
func TelemetrySamples(samples []*snapshot.Telemetry) int {
	n := 0
	for _, t := range samples {
		if t != nil && t.Error == "" {
			n++
		}
	}
	return n
}

// AddCheck adds a check judged outside Judge (e.g. ReplicationCheck) to a verdict: a failed
// check makes the step non-compliant with its detail as a reason, an inconclusive one makes it
// inconclusive unless a check failed. The notes and the unjudged checks stay as they are.
func AddCheck(v Verdict, ch Check) Verdict {
	out := tally(append(append([]Check(nil), v.Checks...), ch))
	out.Notes, out.Unjudged, out.SpecCompliant = v.Notes, v.Unjudged, v.SpecCompliant && out.Compliant
	return out
}
