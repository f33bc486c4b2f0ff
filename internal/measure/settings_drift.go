package measure

import (
	"fmt"
	"sort"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// SettingsCheck compares the settings the run asked for (first: synchronous_commit, the engine's
// parameters or cluster settings, the isolation level's, as status.environment.tuning recorded them
// at the run's first step, the ones the operator sizes from the database's resources left out by
// the caller: a resource switch re-sizes them), as the step's sampling client read them back from
// the server when it connected: a setting changed mid-run means the steps did not measure one
// configuration. On a database the operator manages a change fails the step; on an external one
// it is named and not judged (its owner may change it on purpose). ok is false when there is
// nothing to compare: no setting recorded, or no sampling client in the step.
func SettingsCheck(first []benchv1.EngineSetting, snapshots []*snapshot.Snapshot, managed bool) (sla.Check, bool) {
	if len(first) == 0 {
		return sla.Check{}, false
	}
	var now map[string]string
	for _, s := range snapshots {
		if s != nil && s.Server != nil && s.Server.Settings != nil {
			now = s.Server.Settings
		}
	}
	if now == nil {
		return sla.Check{}, false
	}
	var changed []string
	compared := 0
	for _, t := range first {
		if t.Effective == "" {
			continue
		}
		v, ok := now[t.Name]
		if !ok {
			continue
		}
		compared++
		if strings.TrimSpace(v) != strings.TrimSpace(t.Effective) {
			changed = append(changed, fmt.Sprintf("%s %q → %q", t.Name, t.Effective, v))
		}
	}
	if compared == 0 {
		return sla.Check{}, false
	}
	sort.Strings(changed)
	const name = "settings"
	switch {
	case len(changed) == 0:
		return sla.Check{Name: name, Status: sla.Pass, Detail: fmt.Sprintf("the %d settings the run asked for read back as at the first step", compared)}, true
	case managed:
		return sla.Check{Name: name, Status: sla.Fail, Detail: "settings changed since the run's first step: " + strings.Join(changed, ", ")}, true
	}
	return sla.Check{Name: name, Status: sla.Pass, Detail: "settings changed since the run's first step (an external database: named, not judged): " + strings.Join(changed, ", ")}, true
}
