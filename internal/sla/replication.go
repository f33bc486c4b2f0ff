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

// ReplicationCheck judges a step's standbys against maxLag (sla.maxReplicationLag, `tpcc run
// --max-replication-lag`): it fails when any standby's largest replay lag exceeds the bound,
// naming every such standby and its lag, worst first. samples counts the telemetry samples that
// were read; with none the check is skipped (nothing to judge), with samples but no standby it
// passes (no replica the step counts on).
func ReplicationCheck(lags []StandbyLag, hidden []string, samples int, maxLag time.Duration) Check {
	ch := Check{Name: CheckNameReplicationLag}
	if len(hidden) > 0 {
		// A bound that cannot be checked is not met: the step is not called compliant while the
		// replicas it counts on may be hours behind.
		ch.Status = Fail
		ch.Detail = fmt.Sprintf("replication lag: cannot be judged: the positions of standby %s are hidden from the benchmark's role (grant it pg_monitor)", strings.Join(hidden, ", "))
		return ch
	}
	if samples == 0 {
		ch.Status, ch.Detail = Skipped, "replication lag: skipped: no database telemetry was sampled"
		return ch
	}
	if len(lags) == 0 {
		ch.Status, ch.Detail = Pass, "replication lag: no standby"
		return ch
	}
	sorted := append([]StandbyLag(nil), lags...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ReplayLag > sorted[j].ReplayLag })
	var over []string
	for _, l := range sorted {
		if l.ReplayLag > maxLag {
			over = append(over, fmt.Sprintf("standby %s replay lag %s", l.Standby, formatDuration(l.ReplayLag)))
		}
	}
	if len(over) == 0 {
		ch.Status = Pass
		ch.Detail = fmt.Sprintf("replication lag: largest replay lag %s (standby %s) ≤ %s", formatDuration(sorted[0].ReplayLag), sorted[0].Standby, formatDuration(maxLag))
		return ch
	}
	ch.Status = Fail
	ch.Detail = fmt.Sprintf("replication lag: %s > %s", strings.Join(over, ", "), formatDuration(maxLag))
	return ch
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
// check makes the step non-compliant with its detail as a reason.
func AddCheck(v Verdict, ch Check) Verdict {
	v.Checks = append(v.Checks, ch)
	if ch.Status == Fail {
		v.Compliant, v.SpecCompliant = false, false
		v.Reasons = append(v.Reasons, ch.Detail)
	}
	return v
}
