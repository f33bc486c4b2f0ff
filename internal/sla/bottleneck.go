package sla

import (
	"fmt"
	"sort"
	"strings"
)

// Resources a step can be bound by, as the API names them (benchv1.BottleneckResource).
const (
	BottleneckDatabaseCPU   = "DatabaseCPU"
	BottleneckClientCPU     = "ClientCPU"
	BottleneckDiskLatency   = "DiskLatency"
	BottleneckLockWaits     = "LockWaits"
	BottleneckReplication   = "Replication"
	BottleneckNotDetermined = "NotDetermined"
)

// Thresholds of the bottleneck rules. A pod's CPU is saturated at 90 % of its limit (what
// ClientBound already uses for client pods: metrics-server's windows average a busy pod a little
// below its quota). A wait is the bottleneck when, on average over the sampled intervals, at least
// one session is active and at least half of the active ones wait on it: more sessions wait on
// the resource than run. Conflicts are the bottleneck when one transaction in twenty is retried.
const (
	BottleneckCPUShare   = 0.9
	BottleneckWaitShare  = 0.5
	BottleneckMinActive  = 1.0
	BottleneckRetryShare = 0.05
)

// BottleneckSignals are a step's recorded signals the rules read. A signal that was not recorded
// is its zero value with its Has… flag false: it never counts as "not saturated".
type BottleneckSignals struct {
	// HasResources: the pods' CPU was read (metrics.k8s.io). DatabasePods and ClientPods are their
	// peaks against their CPU limits (Limit 0: no limit).
	HasResources bool
	DatabasePods []PodCPU
	ClientPods   []PodCPU
	// ClientSigns are ClientBound's other signs (late starts, pool waits): evidence, not a verdict
	// on CPU.
	ClientSigns []string
	// HasSessions: the database's sessions were sampled by wait event (PostgreSQL). The means are
	// over the sampled intervals: active sessions, and those waiting on heavyweight locks, on I/O
	// and for the synchronous standbys.
	HasSessions                            bool
	MeanActive, MeanLock, MeanIO, MeanSync float64
	// Transactions completed and Retries made inside them (serialization failures, deadlocks).
	Transactions, Retries int64
	// Replication evidence beside the SyncRep waits: each standby's largest write and flush lag,
	// in seconds (a flush lag far above the write lag is a slow standby disk).
	Standbys []StandbyLags
}

// StandbyLags are one standby's largest lags during a step.
type StandbyLags struct {
	Name                 string
	Write, Flush, Replay float64 // seconds
}

// Bottleneck is what the rules name.
type Bottleneck struct {
	Resource string
	Evidence []string
	// Also lists other resources that crossed their threshold.
	Also []string
}

// NameBottleneck names the resource a step's recorded signals show saturated. Client CPU comes
// first (a client that cannot keep up makes every database figure of the step suspect), then the
// database's CPU, then the largest of the waits (locks, I/O, the synchronous standbys), then
// conflicts (retries). Without the signals a rule needs it says NotDetermined and what is missing,
// and so it does when every recorded signal stayed below its threshold: it never guesses.
func NameBottleneck(s BottleneckSignals) Bottleneck {
	// context: figures below their thresholds, said when nothing is named
	found, context := cpuFindings(s)
	// Merge the findings of one resource (several pods) into one.
	found = mergeFindings(found)
	waits, waitContext := waitFindings(s)
	found, context = append(found, waits...), append(context, waitContext...)
	retries, retryContext := retryFindings(s)
	found, context = append(found, retries...), append(context, retryContext...)
	found = mergeFindings(found)
	if len(s.ClientSigns) > 0 {
		context = append(context, s.ClientSigns...)
	}
	if len(found) == 0 {
		return Bottleneck{Resource: BottleneckNotDetermined,
			Evidence: append([]string{"no recorded signal crossed its threshold"}, context...)}
	}
	return rankFindings(found, s.ClientSigns)
}

// cpuFindings are the client and database pods whose CPU peaked at BottleneckCPUShare of their
// limit or more, and what is said of the others: each database pod's share, the busiest client
// pod's, the database pods without a limit, or that no database pod's CPU (or no pod's) was read.
func cpuFindings(s BottleneckSignals) ([]finding, []string) {
	if !s.HasResources {
		return nil, []string{"the pods' CPU was not read (no metrics.k8s.io)"}
	}
	found, busiest := clientCPUFindings(s.ClientPods)
	dbFound, context, unlimited := databaseCPUFindings(s.DatabasePods)
	found = append(found, dbFound...)
	if busiest != "" {
		context = append(context, busiest)
	}
	if len(unlimited) > 0 {
		context = append(context, fmt.Sprintf("database pods %s have no CPU limit: their CPU saturation cannot be told from their use", strings.Join(unlimited, ", ")))
	}
	if len(s.DatabasePods) == 0 {
		context = append(context, "no database pod's CPU was read (an external database)")
	}
	return found, context
}

// clientCPUFindings are the client pods whose CPU peaked at BottleneckCPUShare of their limit or
// more, and the busiest of the others as a sentence ("" if none has a share above 0).
func clientCPUFindings(pods []PodCPU) (found []finding, busiest string) {
	var busiestShare float64
	for _, p := range sortedPods(pods) {
		if p.Limit <= 0 {
			continue
		}
		share := p.PeakCores / p.Limit
		if share >= BottleneckCPUShare {
			found = append(found, finding{BottleneckClientCPU, 10 + share,
				[]string{fmt.Sprintf("client pod %s peaked at %.2f of its %.2f-core CPU limit (%.0f %%)", p.Name, p.PeakCores, p.Limit, 100*share)}})
		} else if share > busiestShare {
			busiest, busiestShare = fmt.Sprintf("client pod %s at %.0f %% of its CPU limit", p.Name, 100*share), share
		}
	}
	return found, busiest
}

// databaseCPUFindings are the database pods whose CPU peaked at BottleneckCPUShare of their limit
// or more, each other one's share as a sentence, and the names of those without a limit.
func databaseCPUFindings(pods []PodCPU) (found []finding, shares, unlimited []string) {
	for _, p := range sortedPods(pods) {
		if p.Limit <= 0 {
			unlimited = append(unlimited, p.Name)
			continue
		}
		share := p.PeakCores / p.Limit
		if share >= BottleneckCPUShare {
			found = append(found, finding{BottleneckDatabaseCPU, 5 + share,
				[]string{fmt.Sprintf("database pod %s peaked at %.2f of its %.2f-core CPU limit (%.0f %%)", p.Name, p.PeakCores, p.Limit, 100*share)}})
		} else {
			shares = append(shares, fmt.Sprintf("database pod %s peaked at %.0f %% of its CPU limit", p.Name, 100*share))
		}
	}
	return found, shares, unlimited
}

// waitFindings are the waits (the synchronous standbys, locks, I/O) on which at least
// BottleneckWaitShare of the active sessions waited, when at least BottleneckMinActive were
// active, with the standbys' lags as evidence for replication; else the shares as a sentence, or
// that the sessions were not sampled.
func waitFindings(s BottleneckSignals) ([]finding, []string) {
	if !s.HasSessions {
		return nil, []string{"the database's sessions were not sampled by wait event (only some engines' clients can sample them)"}
	}
	shares := fmt.Sprintf("on average %.1f active sessions: %.0f %% waiting for the synchronous standbys, %.0f %% on locks, %.0f %% on I/O",
		s.MeanActive, pct(s.MeanSync, s.MeanActive), pct(s.MeanLock, s.MeanActive), pct(s.MeanIO, s.MeanActive))
	waits := []struct {
		resource string
		mean     float64
	}{{BottleneckReplication, s.MeanSync}, {BottleneckLockWaits, s.MeanLock}, {BottleneckDiskLatency, s.MeanIO}}
	var found []finding
	if s.MeanActive >= BottleneckMinActive {
		for _, w := range waits {
			share := w.mean / s.MeanActive
			if share < BottleneckWaitShare {
				continue
			}
			ev := []string{shares}
			if w.resource == BottleneckReplication {
				ev = append(ev, standbyEvidence(s.Standbys)...)
			}
			found = append(found, finding{w.resource, 1 + share, ev})
		}
	}
	if len(found) == 0 {
		return nil, []string{shares}
	}
	return found, nil
}

// retryFindings are lock waits when at least BottleneckRetryShare of the transactions were
// retried; below that, the retries (if any) as a sentence.
func retryFindings(s BottleneckSignals) ([]finding, []string) {
	if s.Transactions <= 0 {
		return nil, nil
	}
	share := float64(s.Retries) / float64(s.Transactions)
	line := fmt.Sprintf("%d retries inside %d transactions (%.1f %%): serialization failures and deadlocks", s.Retries, s.Transactions, 100*share)
	if share >= BottleneckRetryShare {
		return []finding{{BottleneckLockWaits, share, []string{line}}}, nil
	}
	if s.Retries > 0 {
		return nil, []string{line}
	}
	return nil, nil
}

// rankFindings names the finding with the highest score (the earlier on a tie) and lists the
// others under Also, every finding's evidence in that order; a client-bound step says so, and
// clientSigns close the evidence.
func rankFindings(found []finding, clientSigns []string) Bottleneck {
	sort.SliceStable(found, func(i, j int) bool { return found[i].score > found[j].score })
	out := Bottleneck{Resource: found[0].resource, Evidence: found[0].evidence}
	for _, f := range found[1:] {
		out.Also = append(out.Also, f.resource)
		out.Evidence = append(out.Evidence, f.evidence...)
	}
	if found[0].resource == BottleneckClientCPU {
		out.Evidence = append(out.Evidence, "the clients, not the database, bounded this step: its figures say little about the database")
	}
	out.Evidence = append(out.Evidence, clientSigns...)
	return out
}

// finding is one resource over its threshold, with the score that ranks it.
type finding struct {
	resource string
	score    float64
	evidence []string
}

// mergeFindings keeps one finding per resource: the highest score, every line of evidence.
func mergeFindings(in []finding) []finding {
	var out []finding
	index := map[string]int{}
	for _, f := range in {
		if i, ok := index[f.resource]; ok {
			out[i].score = max(out[i].score, f.score)
			out[i].evidence = append(out[i].evidence, f.evidence...)
			continue
		}
		index[f.resource] = len(out)
		out = append(out, f)
	}
	return out
}

func standbyEvidence(standbys []StandbyLags) []string {
	var out []string
	for _, sb := range standbys {
		line := fmt.Sprintf("standby %s: write lag %s, flush lag %s, replay lag %s", sb.Name, seconds(sb.Write), seconds(sb.Flush), seconds(sb.Replay))
		if sb.Flush > 3*sb.Write && sb.Flush-sb.Write > 0.01 {
			line += ": its disk is the slow part (flush far above write)"
		}
		out = append(out, line)
	}
	return out
}

func seconds(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%.1fms", v*1000)
	}
	return fmt.Sprintf("%.2fs", v)
}

func pct(part, whole float64) float64 {
	if whole <= 0 {
		return 0
	}
	return 100 * part / whole
}

func sortedPods(pods []PodCPU) []PodCPU {
	out := append([]PodCPU(nil), pods...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
