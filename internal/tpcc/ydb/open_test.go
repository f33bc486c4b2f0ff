package ydb

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// An unreachable YDB fails every entry point within the dial timeout with one line that names
// --url and the endpoint, and not the DSN's query string.
func TestUnreachableYDB(t *testing.T) {
	defer func(d time.Duration) { ydbDialTimeout = d }(ydbDialTimeout)
	ydbDialTimeout = time.Second
	const dsn = "grpc://127.0.0.1:1/local?token=secret"
	ctx := context.Background()
	errs := map[string]error{}
	errs["load"] = tpcc.Load(ctx, tpcc.LoadOptions{Driver: Driver, URL: dsn, Warehouses: 1, Threads: 1})
	_, errs["check"] = tpcc.Check(ctx, tpcc.CheckOptions{Driver: Driver, URL: dsn, Warehouses: 1, Threads: 1})
	_, errs["executor"] = tpcc.NewExecutor(ctx, tpcc.ExecutorConfig{Driver: Driver, URL: dsn, MaxConns: 1})
	for what, err := range errs {
		if err == nil {
			t.Errorf("%s: no error", what)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "--url: cannot reach YDB at 127.0.0.1:1/local within 1s") || strings.Contains(msg, "secret") || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q", what, msg)
		}
	}
}
