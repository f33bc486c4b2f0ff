package report

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Notes say where the databases of a comparison are not measured on equal terms: a commit of one
// waits for less than another's (durability not at parity), their pods request different CPU or
// memory, some reached through a connection pooler and others not, a run's placement put two
// instances on one machine or clients beside the database, the workload has no waits, a database
// has fewer results than planned. A note informs; it refuses nothing. The order is stable:
// durability, resources, pooler, placement, workload, runs.
func Notes(c Comparison, runs []benchv1.SuiteRunRecord) []string {
	var notes []string
	notes = append(notes, durabilityNotes(c.Databases)...)
	if n := isolationNote(c); n != "" {
		notes = append(notes, n)
	}
	if n := resourceNote(c.Databases); n != "" {
		notes = append(notes, n)
	}
	if n := poolerNote(c.Databases); n != "" {
		notes = append(notes, n)
	}
	for _, r := range runs {
		for _, flag := range r.Placement {
			notes = append(notes, fmt.Sprintf("placement: %s (%s) %s", r.Name, r.Database, flag))
		}
	}
	if c.Workload.Wait == benchv1.WaitNone {
		notes = append(notes, "workload: wait None sends transactions without keying or think times: a stress test, "+
			"not TPC-C, so tpmC and efficiency are not comparable with spec-compliant results")
	}
	if n := precisionNote(c); n != "" {
		notes = append(notes, n)
	}
	notes = append(notes, reuseNotes(runs)...)
	notes = append(notes, sustainNotes(runs)...)
	for _, r := range c.Results {
		if r.RunsDone == 0 || r.RunsSucceeded == r.RunsDone {
			continue
		}
		var failed []string
		for _, run := range runs {
			if run.Database == r.Database && run.Phase == benchv1.PhaseFailed {
				failed = append(failed, fmt.Sprintf("%s: %s", run.Name, run.Reason))
			}
		}
		notes = append(notes, fmt.Sprintf("runs: %s has results from %d of %d ended runs (failed %s)",
			r.Database, r.RunsSucceeded, r.RunsDone, strings.Join(failed, ", ")))
	}
	return notes
}

// durabilityNotes names each database whose commits wait for less than the best-guarded one's.
func durabilityNotes(dbs []Database) []string {
	best := -1
	for i, d := range dbs {
		if d.Durability.Level != LevelUnknown && (best < 0 || d.Durability.Level > dbs[best].Durability.Level) {
			best = i
		}
	}
	var notes []string
	for _, d := range dbs {
		if d.Durability.Level == LevelUnknown {
			if len(dbs) > 1 {
				notes = append(notes, fmt.Sprintf("durability: %s is external: what its commits wait for is not known, so its durability may not be at parity", d.Name))
			}
			continue
		}
		if best < 0 || d.Durability.Level >= dbs[best].Durability.Level {
			if d.Durability.Level == LevelNoCopy {
				// At parity with the best, which keeps nothing either: still named, since the
				// figures are not those of a durable database.
				notes = append(notes, fmt.Sprintf("durability: a commit on %s waits for %s: %s, so its figures are not those of a durable database",
					d.Name, d.Durability.Words, d.Durability.Loses))
			}
			continue
		}
		b := dbs[best]
		notes = append(notes, fmt.Sprintf("durability not at parity: a commit on %s waits for %s; on %s for %s: %s, so %s's figures are not comparable on equal durability",
			d.Name, d.Durability.Words, b.Name, b.Durability.Words, d.Durability.Loses, d.Name))
	}
	return notes
}

// resourceNote lists the databases' requested totals when they differ.
func resourceNote(dbs []Database) string {
	var deployed []Database
	for _, d := range dbs {
		if d.Resources.Pods > 0 {
			deployed = append(deployed, d)
		}
	}
	differ := false
	for _, d := range deployed[min(1, len(deployed)):] {
		differ = differ || !d.Resources.same(deployed[0].Resources)
	}
	if !differ {
		return ""
	}
	parts := make([]string, len(deployed))
	for i, d := range deployed {
		parts[i] = fmt.Sprintf("%s %s", d.Name, d.Resources)
	}
	return "resources: the database pods request different totals: " + strings.Join(parts, "; ")
}

// poolerNote names the databases whose steps' clients went through a connection pooler when others'
// did not: the pooler adds a hop to every transaction and caps the server connections, and its
// pods' resources count among the database's.
func poolerNote(dbs []Database) string {
	var pooled, direct []string
	for _, d := range dbs {
		if d.Pooler != "" {
			pooled = append(pooled, fmt.Sprintf("%s %s", d.Name, d.Pooler))
		} else {
			direct = append(direct, d.Name)
		}
	}
	if len(pooled) == 0 {
		return ""
	}
	note := "pooler: the clients reached " + strings.Join(pooled, "; ")
	if len(direct) > 0 {
		note += "; " + strings.Join(direct, ", ") + " directly"
	}
	return note + ": a pooler adds a hop to every transaction and caps the database's server connections, and its pods count among the database's resources"
}

// precisionNote warns when ratios rest on too little: a database with fewer than 3 runs with a
// result (no confidence interval) whose steps counted so few New-Orders that counting noise
// alone, 1/√n for n New-Orders, moves its tpmC by more than 1 %. (The study's 213 818 tpmC over
// 10 minutes is ±0.07 %; the local demo's 33 tpmC over one minute ±17 %.)
func precisionNote(c Comparison) string {
	minutes := (10 * time.Minute).Minutes()
	if d := c.Workload.Duration; d != nil && d.Duration > 0 {
		minutes = d.Duration.Minutes()
	}
	var noisy []string
	for _, r := range c.Results {
		if r.RunsSucceeded < 1 || r.RunsSucceeded >= 3 || r.TpmC == nil || r.TpmC.Mean <= 0 {
			continue
		}
		n := r.TpmC.Mean * minutes
		if noise := countingNoisePercent(n); noise > 1 {
			noisy = append(noisy, fmt.Sprintf("%s ±%.0f %% (about %.0f New-Orders a step, %d %s)", r.Database, noise, n, r.RunsSucceeded, pluralWord(int(r.RunsSucceeded), "run", "runs")))
		}
	}
	if len(noisy) == 0 || len(c.Results) < 2 {
		return ""
	}
	return "precision: counting noise alone moves tpmC by " + strings.Join(noisy, "; ") +
		": ratios within that are not differences; with repeats of 3 or more the confidence intervals say how far to trust them"
}

// reuseNotes say, per database, which runs did not load their own data: those that started from the
// data of the run before (a suite's dataReuse Repeats) and how much it had grown — their initial
// data differ from a fresh load's — and those restored from the snapshot an earlier run took of its
// freshly loaded data (dataReuse Snapshot), with what the restored data had grown by when they
// started measuring: nothing, when every restore starts from the same data.
func reuseNotes(runs []benchv1.SuiteRunRecord) []string {
	growth := func(r benchv1.SuiteRunRecord, format string) string {
		if g := r.DataGrowth; g != nil {
			return fmt.Sprintf(format, fmt.Sprintf("grown since the load by orders %+d, history %+d, new_order %+d", g["orders"], g["history"], g["new_order"]))
		}
		return ""
	}
	reused := notesPerDatabase(runs, func(r benchv1.SuiteRunRecord) string {
		if r.ReusedFrom == "" {
			return ""
		}
		return fmt.Sprintf("%s on the data %s kept%s", r.Name, r.ReusedFrom, growth(r, ", %s"))
	}, "data: %s was loaded once; %s (repeats on a grown database measure more data than a fresh load)")
	restored := notesPerDatabase(runs, func(r benchv1.SuiteRunRecord) string {
		if r.RestoredFrom == "" {
			return ""
		}
		return fmt.Sprintf("%s from %s's snapshot%s", r.Name, r.RestoredFrom, growth(r, " (%s)"))
	}, "data: %s was loaded once and snapshotted; restored into a database of its own: %s (every restore starts from the data as loaded)")
	return append(reused, restored...)
}

// notesPerDatabase gathers what item says of each run ("" for nothing), database by database in the
// order the runs first name them, into one note each: sentence with the database and the items.
func notesPerDatabase(runs []benchv1.SuiteRunRecord, item func(benchv1.SuiteRunRecord) string, sentence string) []string {
	var notes, order []string
	by := map[string][]string{}
	for _, r := range runs {
		s := item(r)
		if s == "" {
			continue
		}
		if _, ok := by[r.Database]; !ok {
			order = append(order, r.Database)
		}
		by[r.Database] = append(by[r.Database], s)
	}
	for _, db := range order {
		notes = append(notes, fmt.Sprintf(sentence, db, strings.Join(by[db], "; ")))
	}
	return notes
}

// sustainNotes say, per run with a sustained phase, whether it held its result: a capacity the
// database does not hold for hours is reported beside the one it does.
func sustainNotes(runs []benchv1.SuiteRunRecord) []string {
	var notes []string
	for _, r := range runs {
		if r.Result == nil || r.Result.Sustained == nil {
			continue
		}
		s := r.Result.Sustained
		if s.Held {
			notes = append(notes, fmt.Sprintf("sustained: %s held its SLA for %s at %d active warehouses (%.1f tpmC)", r.Name, s.Duration.Duration, s.ActiveWarehouses, s.TpmC))
			continue
		}
		notes = append(notes, fmt.Sprintf("sustained: %s did NOT hold: at %d active warehouses the SLA first broke %s into %s (%s)",
			r.Name, s.ActiveWarehouses, s.BrokeAfter.Duration, s.Duration.Duration, s.Reason))
	}
	return notes
}
