package measure

import (
	"strings"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestSettingsCheck(t *testing.T) {
	env := []benchv1.EngineSetting{
		{Name: "synchronous_commit", Source: "postgres.synchronousCommit", Requested: "remote_apply", Effective: "remote_apply"},
		{Name: "wal_compression", Source: "postgres.parameters", Requested: "on", Note: "not reported by the database"},
	}
	step := func(settings map[string]string) []*snapshot.Snapshot {
		return []*snapshot.Snapshot{{}, {Server: &snapshot.ServerInfo{Settings: settings}}}
	}
	for _, tc := range []struct {
		name      string
		env       []benchv1.EngineSetting
		snapshots []*snapshot.Snapshot
		managed   bool
		ok        bool
		status    sla.Status
		detail    string
	}{
		{"unchanged", env, step(map[string]string{"synchronous_commit": "remote_apply", "shared_buffers": "1GB"}), true, true, sla.Pass, "the 1 settings"},
		{"synchronous_commit lowered on a managed database", env, step(map[string]string{"synchronous_commit": "local"}), true, true, sla.Fail, `synchronous_commit "remote_apply" → "local"`},
		{"named on an external database", env, step(map[string]string{"synchronous_commit": "off"}), false, true, sla.Pass, "named, not judged"},
		{"no sampling client in the step", env, []*snapshot.Snapshot{{}}, true, false, "", ""},
		{"nothing recorded at the first step", nil, step(map[string]string{"synchronous_commit": "on"}), true, false, "", ""},
		{"the setting not read this time", env, step(map[string]string{"wal_compression": "on"}), true, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, ok := SettingsCheck(tc.env, tc.snapshots, tc.managed)
			if ok != tc.ok || (ok && (ch.Status != tc.status || !strings.Contains(ch.Detail, tc.detail))) {
				t.Errorf("got %+v, %v; want %v %s with %q", ch, ok, tc.ok, tc.status, tc.detail)
			}
		})
	}
}
