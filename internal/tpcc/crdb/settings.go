// Package crdb is what the client sends to tune a CockroachDB cluster: SET CLUSTER SETTING before
// the load, SHOW CLUSTER SETTING to read back what the cluster runs with. Each statement is
// checked with CockroachDB's own grammar (internal/tpcc/crdbgrammar).
package crdb

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// settingName is a cluster setting's name as admission accepts it (cockroach.clusterSettings):
// lower-case dotted words. It goes into the statement as an identifier path, never quoted text.
var settingName = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$`)

// CheckName says why name is not a cluster setting name.
func CheckName(name string) error {
	if !settingName.MatchString(name) {
		return fmt.Errorf("cluster setting %q: names are lower-case and dotted (kv.snapshot_rebalance.max_rate)", name)
	}
	return nil
}

// SetClusterSetting is the statement setting name to value. The value is a string literal;
// CockroachDB types it as the setting's own type (bool, integer, duration, byte size, enum), as it
// does with any string constant.
func SetClusterSetting(name, value string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	return "SET CLUSTER SETTING " + name + " = " + quote(value), nil
}

// ShowClusterSetting is the statement reading name's current value.
func ShowClusterSetting(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	return "SHOW CLUSTER SETTING " + name, nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ParseSettings reads name=value pairs (the loader's --cluster-setting flags).
func ParseSettings(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range pairs {
		name, value, ok := strings.Cut(p, "=")
		if !ok || value == "" {
			return nil, fmt.Errorf("--cluster-setting %q: want name=value", p)
		}
		if err := CheckName(name); err != nil {
			return nil, fmt.Errorf("--cluster-setting: %w", err)
		}
		out[name] = value
	}
	return out, nil
}

// Apply sets every setting, in name order, on conn. SET CLUSTER SETTING is idempotent: every
// loader pod applies them, and a restarted one applies them again.
func Apply(ctx context.Context, conn *pgx.Conn, settings map[string]string) error {
	for _, name := range sortedNames(settings) {
		stmt, err := SetClusterSetting(name, settings[name])
		if err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, stmt, pgx.QueryExecModeSimpleProtocol); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}

// Read returns the current value of each named setting as CockroachDB shows it; a setting that
// cannot be read (unknown to this version, no privilege) is in failed with the reason.
func Read(ctx context.Context, conn *pgx.Conn, names []string) (values, failed map[string]string) {
	values, failed = map[string]string{}, map[string]string{}
	for _, name := range names {
		stmt, err := ShowClusterSetting(name)
		if err != nil {
			failed[name] = err.Error()
			continue
		}
		var v string
		// The simple protocol returns every type as text, as the setting shows it.
		if err := conn.QueryRow(ctx, stmt, pgx.QueryExecModeSimpleProtocol).Scan(&v); err != nil {
			failed[name] = err.Error()
			continue
		}
		values[name] = v
	}
	return values, failed
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
