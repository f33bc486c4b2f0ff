package report

import (
	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Level orders what a commit's acknowledgement guarantees, weakest first.
type Level int

const (
	// LevelNoCopy: the tables write no log at all, or no instance flushes it: below one copy,
	// since even the writer's own crash loses them.
	LevelNoCopy Level = -1
	// LevelUnknown: an external database; the operator does not know how it is configured.
	LevelUnknown Level = iota
	// LevelOneCopy: the commit is on one server's disk (asynchronous or no replication).
	LevelOneCopy
	// LevelRemoteMemory: another server has received the commit but not yet flushed it to disk.
	LevelRemoteMemory
	// LevelReplicatedDisk: the commit is on the disks of two or more servers.
	LevelReplicatedDisk
)

// Durability is what a commit of a database waits for.
type Durability struct {
	// Words say it, in the engine's terms.
	Words string `json:"words"`
	// Level orders the guarantee; comparisons of levels drive the durability fairness note.
	Level Level `json:"level"`
	// Loses says what an acknowledged commit does not survive, for levels below the best.
	Loses string `json:"-"`
}

// levels maps the API's durability levels onto the order comparisons use.
var levels = map[benchv1.DurabilityLevel]Level{
	benchv1.DurabilityNoCopy:         LevelNoCopy,
	benchv1.DurabilityUnknown:        LevelUnknown,
	benchv1.DurabilityOneCopy:        LevelOneCopy,
	benchv1.DurabilityRemoteMemory:   LevelRemoteMemory,
	benchv1.DurabilityReplicatedDisk: LevelReplicatedDisk,
}

// DurabilityOf says what a commit of the database waits for, as its engine described it (a level
// the report does not know reads as unknown).
func DurabilityOf(d benchv1.DatabaseDescription) Durability {
	level, ok := levels[d.Durability.Level]
	if !ok {
		level = LevelUnknown
	}
	return Durability{Words: d.Durability.Words, Level: level, Loses: d.Durability.Loses}
}

// DurabilitySentence is a run report's line on what a commit of the run's database waits for, and
// what an acknowledged commit does not survive when that is less than the best a deployment gives.
func DurabilitySentence(db benchv1.DatabaseDescription) string {
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

// NotDescribed is the durability of a run whose status records no description of its database: the
// report says so rather than guess an engine.
const NotDescribed = "not recorded: the run's status has no description of its database"

// DescriptionOf is the run's database as its engine described it (status.database.description); a
// run without one (callers describe runs before rendering them: internal/engines/registry's
// Described) reads as not described, never as some engine.
func DescriptionOf(run *benchv1.BenchmarkRun) benchv1.DatabaseDescription {
	if db := run.Status.Database; db != nil && db.Description != nil {
		return *db.Description
	}
	return benchv1.DatabaseDescription{Engine: run.Spec.Database.Engine,
		Durability: benchv1.Durability{Words: NotDescribed, Level: benchv1.DurabilityUnknown}}
}
