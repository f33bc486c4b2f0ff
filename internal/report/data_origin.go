package report

import (
	"fmt"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// DataOrigin says where a run's data came from and what became of it, one sentence for the
// reports and the plugin: loaded by the run, taken over from the database an earlier run kept
// (spec.database.reuse), or restored from the snapshot an earlier run took of its freshly loaded
// data (spec.database.restore) — with how much the workload had grown it since the load — and
// whether the run kept its own loaded data as a snapshot (spec.database.snapshot). "" before the
// data is there.
func DataOrigin(run *benchv1.BenchmarkRun) string {
	l := run.Status.Load
	if l == nil || l.CompletionTime == nil {
		return ""
	}
	var parts []string
	switch {
	case l.RestoredFrom != "":
		s := fmt.Sprintf("restored from the snapshot run %s took of its freshly loaded data", l.RestoredFrom)
		if l.Snapshot != nil && len(l.Snapshot.VolumeSnapshots) > 0 {
			s += fmt.Sprintf(" (VolumeSnapshot %s)", strings.Join(l.Snapshot.VolumeSnapshots, ", "))
		}
		parts = append(parts, s)
	case l.ReusedFrom != "":
		parts = append(parts, fmt.Sprintf("the database run %s kept, not loaded again", l.ReusedFrom))
	default:
		parts = append(parts, "loaded by this run")
	}
	if d := l.Dataset; d != nil {
		parts[0] = fmt.Sprintf("%d warehouses (load seed %s), %s", d.Warehouses, d.Seed, parts[0])
		if l.RestoredFrom != "" || l.ReusedFrom != "" {
			g := d.Growth
			parts = append(parts, fmt.Sprintf("grown since the load by orders %+d, history %+d, new_order %+d when the run began", g["orders"], g["history"], g["new_order"]))
		}
	}
	if s := l.Snapshot; s != nil && l.RestoredFrom == "" {
		switch {
		case s.ReadyTime != nil:
			took := ""
			if s.StartTime != nil {
				took = fmt.Sprintf(" in %s", s.ReadyTime.Sub(s.StartTime.Time).Round(time.Second))
			}
			on := ""
			if s.Instance != "" {
				on = " on " + s.Instance
			}
			parts = append(parts, fmt.Sprintf("kept after the load as VolumeSnapshot %s (taken%s%s, %s to restore), for later runs to restore (spec.database.restore)",
				strings.Join(s.VolumeSnapshots, ", "), on, took, Bytes(s.RestoreBytes)))
		default:
			parts = append(parts, fmt.Sprintf("being kept as a snapshot (%s)", s.Backup))
		}
	}
	return "Data: " + strings.Join(parts, "; ") + "."
}

// Bytes says a byte count in binary units: "512 B", "12.3 MiB", "1.50 GiB".
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
