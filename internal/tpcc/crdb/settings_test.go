package crdb

import (
	"strings"
	"testing"
)

func TestStatements(t *testing.T) {
	got, err := SetClusterSetting("kv.snapshot_rebalance.max_rate", "64MiB")
	if err != nil || got != "SET CLUSTER SETTING kv.snapshot_rebalance.max_rate = '64MiB'" {
		t.Errorf("SetClusterSetting = %q, %v", got, err)
	}
	got, err = SetClusterSetting("cluster.organization", "it's ours")
	if err != nil || got != "SET CLUSTER SETTING cluster.organization = 'it''s ours'" {
		t.Errorf("a quote in the value: %q, %v", got, err)
	}
	got, err = ShowClusterSetting("sql.txn.repeatable_read_isolation.enabled")
	if err != nil || got != "SHOW CLUSTER SETTING sql.txn.repeatable_read_isolation.enabled" {
		t.Errorf("ShowClusterSetting = %q, %v", got, err)
	}
	for _, bad := range []string{"version", "KV.x", "kv.x; DROP TABLE t", "kv.x = 1 --", "kv..x", ""} {
		if _, err := SetClusterSetting(bad, "1"); err == nil || !strings.Contains(err.Error(), "lower-case and dotted") {
			t.Errorf("SetClusterSetting(%q) = %v, want a refusal", bad, err)
		}
		if _, err := ShowClusterSetting(bad); err == nil {
			t.Errorf("ShowClusterSetting(%q) accepted", bad)
		}
	}
}

func TestParseSettings(t *testing.T) {
	got, err := ParseSettings([]string{"kv.rangefeed.enabled=true", "sql.defaults.results_buffer.size=512KiB", "cluster.organization=a=b"})
	if err != nil || len(got) != 3 || got["cluster.organization"] != "a=b" || got["kv.rangefeed.enabled"] != "true" {
		t.Errorf("ParseSettings = %v, %v", got, err)
	}
	for _, bad := range []string{"kv.rangefeed.enabled", "kv.rangefeed.enabled=", "Bad.Name=1"} {
		if _, err := ParseSettings([]string{bad}); err == nil || !strings.Contains(err.Error(), "--cluster-setting") {
			t.Errorf("ParseSettings(%q) = %v, want an error naming the flag", bad, err)
		}
	}
}
