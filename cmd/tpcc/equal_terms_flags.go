package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/crdb"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// listFlag is a flag given once per value (--cluster-setting a=1 --cluster-setting b=2).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// parseIsolation reads --isolation for the engine: "" keeps the engine's default.
func parseIsolation(d tpcc.Dialect, s string) (isolation.Level, error) {
	if s == "" {
		return "", nil
	}
	l, err := isolation.Parse(s)
	if err != nil {
		return "", fmt.Errorf("--isolation: %w", err)
	}
	if why := d.SupportsIsolation(l); why != "" {
		return "", fmt.Errorf("--isolation %s: %s", s, why)
	}
	return l, nil
}

// applyClusterSettings sets the loader's --cluster-setting values on a CockroachDB before it loads
// (SET CLUSTER SETTING, idempotent: every loader pod applies them).
func applyClusterSettings(ctx context.Context, d tpcc.Dialect, url string, pairs []string) error {
	if len(pairs) == 0 {
		return nil
	}
	if d != tpcc.Cockroach {
		return fmt.Errorf("--cluster-setting applies only to --engine cockroach")
	}
	settings, err := crdb.ParseSettings(pairs)
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("--cluster-setting: connect: %s", snapshot.RedactCredentials(err.Error()))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := crdb.Apply(ctx, conn, settings); err != nil {
		return fmt.Errorf("--cluster-setting: %s", snapshot.RedactCredentials(err.Error()))
	}
	return nil
}
