package main

import (
	"context"
	"io"

	"github.com/tpcc-operator/tpcc-operator/internal/k6ext"
)

var k6Command = command{name: "k6", summary: "the full k6 CLI with the k6/x/tpcc extension built in (custom scripts)", run: runK6}

// runK6 passes its arguments to k6 unchanged: tpcc k6 run script.js, tpcc k6 version, …
func runK6(ctx context.Context, args []string, _, _ io.Writer) int {
	return k6ext.RunK6(ctx, k6ext.K6Invocation{Args: args, Env: k6ext.OfflineEnv(nil)})
}
