package postgres

import (
	"fmt"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

// Describe implements engines.Engine: the instances and how many of them are synchronous, what a
// commit waits for under synchronous_commit (or that it waits for no disk: unlogged tables, fsync
// off), the instances' resources and volume (and the pooler's PgBouncer pods'), the pooler the
// steps' clients went through, and the postgres.parameters the run sets.
func (Engine) Describe(db benchv1.DatabaseSpec) benchv1.DatabaseDescription {
	p := db.EffectivePostgres()
	pods := benchv1.DatabasePodGroup{Role: "instance", Count: p.Instances, Resources: p.Resources, Storage: engines.VolumeSize(p.Storage)}
	if p.LoadResources != nil && db.Reuse == nil {
		load := *p.LoadResources.DeepCopy()
		pods.LoadResources = &load
	}
	tuning := benchv1.DatabaseTuning{Words: "sets no postgres.parameters"}
	if n := len(p.Parameters); n > 0 {
		tuning = benchv1.DatabaseTuning{Words: fmt.Sprintf("sets %d postgres.parameters", n), Settings: int32(n)}
	}
	desc := benchv1.DatabaseDescription{
		Deployment: deployment(p),
		Durability: durability(p),
		Pods:       []benchv1.DatabasePodGroup{pods},
		Tuning:     tuning,
	}
	if words := poolerWords(p); words != "" {
		desc.Deployment += ", " + words
		desc.Pooler = words
		desc.Pods = append(desc.Pods, benchv1.DatabasePodGroup{Role: "pgbouncer", Count: p.Pooler.Instances, Resources: p.Pooler.Resources})
	}
	return desc
}

// deployment summarises the instances: "PostgreSQL, 3 instances, 2 synchronous (remote_apply)".
func deployment(p benchv1.PostgresSpec) string {
	if FsyncOff(p.Parameters) { // synchronous_commit's level then names no disk: not said
		if *p.SynchronousReplicas == 0 {
			return fmt.Sprintf("PostgreSQL, %s, asynchronous, fsync off", plural(p.Instances, "instance", "instances"))
		}
		return fmt.Sprintf("PostgreSQL, %d instances, %d synchronous, fsync off", p.Instances, *p.SynchronousReplicas)
	}
	if *p.SynchronousReplicas == 0 { // synchronous_commit then waits for the local flush only
		return fmt.Sprintf("PostgreSQL, %s, asynchronous", plural(p.Instances, "instance", "instances"))
	}
	return fmt.Sprintf("PostgreSQL, %d instances, %d synchronous (%s)", p.Instances, *p.SynchronousReplicas, p.SynchronousCommit)
}

// durability says what a commit waits for: the synchronous standbys and synchronous_commit's level,
// or less than one copy when the tables are unlogged or fsync is off.
func durability(p benchv1.PostgresSpec) benchv1.Durability {
	if p.Tables == benchv1.TablesUnlogged {
		// The study's "NoWAL": whatever the replication, the TPC-C tables write no WAL.
		return benchv1.Durability{Words: "nothing: the TPC-C tables are unlogged (no WAL, not replicated, emptied by crash recovery)",
			Level: benchv1.DurabilityNoCopy, Loses: "it loses every row of the TPC-C tables in a crash or failover"}
	}
	if FsyncOff(p.Parameters) {
		// Whatever synchronous_commit waits for, it is the standbys' memory: with fsync off no
		// instance flushes WAL, so the words never claim a level (not remote_apply, not on).
		return benchv1.Durability{Words: "no disk flush: fsync is off, so no instance writes a commit to disk before acknowledging it",
			Level: benchv1.DurabilityNoCopy, Loses: "it can lose acknowledged commits, and corrupt its data, when an instance's operating system crashes or loses power"}
	}
	standbys := p.Instances - 1
	n := *p.SynchronousReplicas
	if n == 0 {
		if standbys == 0 {
			return benchv1.Durability{Words: "the primary's own WAL flush (a single instance, no standby)", Level: benchv1.DurabilityOneCopy,
				Loses: "it loses acknowledged commits when its only instance's disk is lost"}
		}
		return benchv1.Durability{Words: fmt.Sprintf("the primary's own WAL flush only (%s, 0 synchronous replicas)", plural(standbys, "asynchronous standby", "asynchronous standbys")),
			Level: benchv1.DurabilityOneCopy, Loses: "it can lose acknowledged commits when its primary fails"}
	}
	var who string
	switch {
	case n == standbys && n == 1:
		who = "the synchronous standby"
	case n == standbys && n == 2:
		who = "both synchronous standbys"
	case n == standbys:
		who = fmt.Sprintf("all %d synchronous standbys", n)
	default:
		who = fmt.Sprintf("any %d of the %d standbys", n, standbys)
	}
	switch p.SynchronousCommit {
	case "remote_write":
		return benchv1.Durability{Words: who + " wrote it to the operating system, not yet to disk (remote_write)", Level: benchv1.DurabilityRemoteMemory,
			Loses: "it can lose acknowledged commits when its primary and a synchronous standby's host fail together"}
	case "on":
		return benchv1.Durability{Words: who + " flushed it to disk (on)", Level: benchv1.DurabilityReplicatedDisk}
	default:
		return benchv1.Durability{Words: who + " applied it (remote_apply)", Level: benchv1.DurabilityReplicatedDisk}
	}
}

// FsyncOff says whether postgresql.conf parameters switch fsync off. Names match ignoring case and
// values are read as PostgreSQL reads a boolean: off, false, no, 0, and any unambiguous prefix of
// those words (f, fa, n, of …), in any case. The other parameters that weaken durability
// (synchronous_commit, full_page_writes, data_sync_retry) are refused at admission.
func FsyncOff(parameters map[string]string) bool {
	for name, value := range parameters {
		if strings.EqualFold(name, "fsync") && pgFalse(value) {
			return true
		}
	}
	return false
}

// pgFalse reads a PostgreSQL boolean that is false (parse_bool: "o" alone is ambiguous, "of" is off).
func pgFalse(value string) bool {
	v := strings.ToLower(strings.TrimSpace(value))
	if v == "0" {
		return true
	}
	for _, word := range []string{"false", "no"} {
		if v != "" && strings.HasPrefix(word, v) {
			return true
		}
	}
	return len(v) >= 2 && strings.HasPrefix("off", v)
}

func plural(n int32, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
