package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

var checkCommand = command{name: "check", summary: "verify the TPC-C consistency conditions 3.3.2.1-3.3.2.12", run: runCheck}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", stderr)
	var t targetFlags
	t.register(fs)
	loadTime := fs.Bool("load-time", false, "also check 3.3.2.11, valid only before any Delivery has run")
	chunk := fs.Int("chunk", 10, "warehouses per snapshot transaction")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	d, err := t.resolve()
	if err == nil && *chunk < 1 {
		err = fmt.Errorf("--chunk must be >= 1, got %d", *chunk)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tpcc check: %v\n", err)
		return 2
	}
	res, err := tpcc.Check(ctx, tpcc.CheckOptions{
		Dialect: d, URL: t.url, Warehouses: t.warehouses, From: t.from, To: t.to, Threads: t.threads,
		LoadTime: *loadTime, ChunkSize: *chunk,
	})
	if err != nil {
		fmt.Fprintf(stderr, "tpcc check: %v\n", err)
		return 1
	}
	if !tpcc.WriteCheckReport(stdout, res) {
		fmt.Fprintf(stdout, "FAIL: warehouses %d-%d are not consistent\n", t.from, t.to)
		return 1
	}
	fmt.Fprintf(stdout, "PASS: warehouses %d-%d\n", t.from, t.to)
	return 0
}
