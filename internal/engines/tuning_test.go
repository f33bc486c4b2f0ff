package engines

import (
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestSameSettingValue(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"2GB", "2GB", true},
		{"262144kB", "256MB", true},
		{"64MiB", "64 MiB", true},
		{"on", "true", true},
		{"true", "false", false},
		{"15min", "900s", true},
		{"5m0s", "5m", true},
		{"300s", "5m0s", true},
		{"remote_apply", "remote_apply", true},
		{"remote_apply", "on", false},
		{"221", "221", true},
		{"221", "200", false},
		{"9489kB", "9489kB", true},
		{"1GB", "1000MB", false},
	} {
		if got := SameSettingValue(c.a, c.b); got != c.same {
			t.Errorf("SameSettingValue(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

func TestTuningRecord(t *testing.T) {
	requested := []benchv1.EngineSetting{
		{Name: "shared_buffers", Source: SourceSizing, Requested: "2GB"},
		{Name: "work_mem", Source: "postgres.parameters", Requested: "64MB"},
		{Name: "max_connections", Source: SourceSizing, Requested: "221"},
		{Name: "cache", Source: SourceSizing, Requested: "2GiB", Note: "a start flag, not readable through SQL"},
	}
	got := TuningRecord(requested, map[string]string{"shared_buffers": "2GB", "work_mem": "4MB"}, "")
	want := map[string]benchv1.EngineSetting{
		"shared_buffers":  {Name: "shared_buffers", Source: SourceSizing, Requested: "2GB", Effective: "2GB"},
		"work_mem":        {Name: "work_mem", Source: "postgres.parameters", Requested: "64MB", Effective: "4MB", Note: "the database reports another value than the run asked for"},
		"max_connections": {Name: "max_connections", Source: SourceSizing, Requested: "221", Note: "not reported by the database"},
		"cache":           requested[3],
	}
	if len(got) != len(want) || got[0].Name != "cache" {
		t.Fatalf("got %+v", got)
	}
	for _, s := range got {
		if s != want[s.Name] {
			t.Errorf("%s: %+v, want %+v", s.Name, s, want[s.Name])
		}
	}
	failed := TuningRecord(requested[:1], nil, "settings not read: permission denied")
	if failed[0].Note != "not read: settings not read: permission denied" || failed[0].Effective != "" {
		t.Errorf("a failed read: %+v", failed[0])
	}
	if names := SettingNames(requested); len(names) != 3 || names[0] != "max_connections" {
		t.Errorf("SettingNames = %v, want the three readable ones sorted", names)
	}
}

func TestUnsized(t *testing.T) {
	got := Unsized([]benchv1.EngineSetting{{Name: "shared_buffers", Source: SourceSizing}, {Name: "synchronous_commit", Source: "postgres.synchronousCommit"},
		{Name: "default_transaction_isolation", Source: SourceIsolation}})
	if len(got) != 2 || got[0].Name != "synchronous_commit" || got[1].Name != "default_transaction_isolation" {
		t.Errorf("Unsized = %+v, want the two settings not sized", got)
	}
	if Unsized(nil) != nil {
		t.Error("Unsized(nil) is not nil")
	}
}
