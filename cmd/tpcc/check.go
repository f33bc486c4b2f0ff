package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

var checkCommand = command{name: "check", summary: "verify the TPC-C consistency conditions 3.3.2.1-3.3.2.12", run: runCheck}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", stderr)
	var t targetFlags
	t.register(fs)
	loadTime := fs.Bool("load-time", false, "also check 3.3.2.11, valid only before any Delivery has run")
	chunk := fs.Int("chunk", 10, "warehouses per snapshot transaction")
	datasetJSON := fs.String("dataset-json", "", "after the check, write the dataset's identity (engine, schema version, warehouses, load seed) and the rows the workload grew since the load, as JSON, to this file (a run's check Job: /dev/termination-log)")
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
		Driver: d, URL: t.url, Warehouses: t.warehouses, From: t.from, To: t.to, Threads: t.threads,
		LoadTime: *loadTime, ChunkSize: *chunk,
	})
	if err != nil {
		fmt.Fprintf(stderr, "tpcc check: %v\n", err)
		return 1
	}
	passed := tpcc.WriteCheckReport(stdout, res)
	if *datasetJSON != "" {
		ds, err := tpcc.ReadDataset(ctx, d, t.url)
		if err != nil {
			fmt.Fprintf(stderr, "tpcc check: --dataset-json: %s\n", snapshot.RedactCredentials(err.Error()))
			return 1
		}
		body, _ := json.Marshal(ds)
		if err := os.WriteFile(*datasetJSON, body, 0o644); err != nil {
			fmt.Fprintf(stderr, "tpcc check: --dataset-json: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "dataset: %s, schema %d, %d warehouses, seed %d, growth since the load %v\n", ds.Engine, ds.SchemaVersion, ds.Warehouses, ds.Seed, ds.Growth())
	}
	if !passed {
		fmt.Fprintf(stdout, "FAIL: warehouses %d-%d are not consistent\n", t.from, t.to)
		return 1
	}
	fmt.Fprintf(stdout, "PASS: warehouses %d-%d\n", t.from, t.to)
	return 0
}
