package report

import (
	"fmt"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Level orders what a commit's acknowledgement guarantees, weakest first.
type Level int

const (
	// LevelNoCopy: the tables write no WAL at all (PostgreSQL's unlogged tables), or no instance
	// flushes it (fsync off): below one copy, since even the primary's own crash loses them.
	LevelNoCopy Level = -1
	// LevelUnknown: an external database; the operator does not know how it is configured.
	LevelUnknown Level = iota
	// LevelOneCopy: the commit is on one server's disk (asynchronous or no replication).
	LevelOneCopy
	// LevelRemoteMemory: another server has received the commit but not yet flushed it to disk.
	LevelRemoteMemory
	// LevelReplicatedDisk: the commit is on the disks of two or more servers (synchronous
	// standbys with synchronous_commit on or remote_apply, a Raft majority, YDB's erasure).
	LevelReplicatedDisk
)

// Durability is what a commit of a database waits for.
type Durability struct {
	// Words say it: "both synchronous standbys applied it (remote_apply)", "a Raft majority of 3
	// replicas", "mirror-3-dc: …".
	Words string `json:"words"`
	// Level orders the guarantee; comparisons of levels drive the durability fairness note.
	Level Level `json:"level"`
	// Loses says what an acknowledged commit does not survive, for levels below the best.
	Loses string `json:"-"`
}

// DurabilityOf says what a commit of the database waits for, from its spec with defaults applied.
func DurabilityOf(db benchv1.DatabaseSpec) Durability {
	if db.External != nil {
		return Durability{Words: "not known: an external database the operator did not deploy", Level: LevelUnknown}
	}
	switch db.Engine {
	case benchv1.EngineCockroachDB:
		c := db.EffectiveCockroach()
		if c.Nodes <= 1 {
			return Durability{Words: "a single replica (1 node: nothing is replicated)", Level: LevelOneCopy,
				Loses: "it loses acknowledged commits with its node's disk"}
		}
		return Durability{Words: fmt.Sprintf("a Raft majority of %d replicas", min(3, c.Nodes)), Level: LevelReplicatedDisk}
	case benchv1.EngineYDB:
		y := db.EffectiveYDB()
		switch y.Erasure {
		case benchv1.ErasureMirror3DC:
			return Durability{Words: "mirror-3-dc (3 replicas in 3 failure domains)", Level: LevelReplicatedDisk}
		case benchv1.ErasureBlock42:
			return Durability{Words: "block-4-2 (erasure-coded over 6 parts, any 2 may be lost)", Level: LevelReplicatedDisk}
		default:
			return Durability{Words: "none (erasure none: a single copy)", Level: LevelOneCopy,
				Loses: "it loses acknowledged commits with a storage node's disk"}
		}
	default:
		return postgresDurability(db.EffectivePostgres())
	}
}

func postgresDurability(p benchv1.PostgresSpec) Durability {
	if p.Tables == benchv1.TablesUnlogged {
		// The study's "NoWAL": whatever the replication, the TPC-C tables write no WAL.
		return Durability{Words: "nothing: the TPC-C tables are unlogged (no WAL, not replicated, emptied by crash recovery)",
			Level: LevelNoCopy, Loses: "it loses every row of the TPC-C tables in a crash or failover"}
	}
	if FsyncOff(p.Parameters) {
		// Whatever synchronous_commit waits for, it is the standbys' memory: with fsync off no
		// instance flushes WAL, so the words never claim a level (not remote_apply, not on).
		return Durability{Words: "no disk flush: fsync is off, so no instance writes a commit to disk before acknowledging it",
			Level: LevelNoCopy, Loses: "it can lose acknowledged commits, and corrupt its data, when an instance's operating system crashes or loses power"}
	}
	standbys := p.Instances - 1
	n := *p.SynchronousReplicas
	if n == 0 {
		if standbys == 0 {
			return Durability{Words: "the primary's own WAL flush (a single instance, no standby)", Level: LevelOneCopy,
				Loses: "it loses acknowledged commits when its only instance's disk is lost"}
		}
		return Durability{Words: fmt.Sprintf("the primary's own WAL flush only (%s, 0 synchronous replicas)", plural(standbys, "asynchronous standby", "asynchronous standbys")),
			Level: LevelOneCopy, Loses: "it can lose acknowledged commits when its primary fails"}
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
		return Durability{Words: who + " wrote it to the operating system, not yet to disk (remote_write)", Level: LevelRemoteMemory,
			Loses: "it can lose acknowledged commits when its primary and a synchronous standby's host fail together"}
	case "on":
		return Durability{Words: who + " flushed it to disk (on)", Level: LevelReplicatedDisk}
	default:
		return Durability{Words: who + " applied it (remote_apply)", Level: LevelReplicatedDisk}
	}
}

// DurabilitySentence is a run report's line on what a commit of the run's database waits for, and
// what an acknowledged commit does not survive when that is less than the best a deployment gives.
func DurabilitySentence(db benchv1.DatabaseSpec) string {
	d := DurabilityOf(db)
	if d.Level == LevelUnknown {
		return "Durability: " + d.Words + "."
	}
	s := "Durability: a commit waits for " + d.Words
	if d.Loses != "" {
		s += "; " + d.Loses
	}
	return s + "."
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
