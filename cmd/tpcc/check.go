package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

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
	summaryJSON := fs.String("summary-json", "", "after the check, write its summary (conditions checked and passed, the first that failed, the elapsed time) and the dataset read afterwards, as JSON, to this file (a run's check after its last step: /dev/termination-log); written whether the conditions hold or not")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	d, err := t.resolve()
	if err == nil && *chunk < 1 {
		err = fmt.Errorf("--chunk must be >= 1, got %d", *chunk)
	}
	if err == nil && *summaryJSON != "" && *summaryJSON == *datasetJSON {
		err = fmt.Errorf("--summary-json and --dataset-json name the same file %q", *summaryJSON)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tpcc check: %v\n", err)
		return 2
	}
	started := time.Now()
	res, err := tpcc.Check(ctx, tpcc.CheckOptions{
		Driver: d, URL: t.url, Warehouses: t.warehouses, From: t.from, To: t.to, Threads: t.threads,
		LoadTime: *loadTime, ChunkSize: *chunk,
	})
	if err != nil {
		fmt.Fprintf(stderr, "tpcc check: %v\n", err)
		return 1
	}
	passed := tpcc.WriteCheckReport(stdout, res)
	if *summaryJSON != "" {
		if err := writeCheckSummary(ctx, *summaryJSON, d, t.url, res, started, stderr); err != nil {
			fmt.Fprintf(stderr, "tpcc check: --summary-json: %v\n", err)
			return 1
		}
	}
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

// writeCheckSummary writes the check's summary with the dataset read after it. A dataset that
// cannot be read leaves the summary without one (the reader then cannot compare the growth), and
// is said on stderr.
func writeCheckSummary(ctx context.Context, path string, d tpcc.Driver, url string, res []tpcc.CheckResult, started time.Time, stderr io.Writer) error {
	ds, err := tpcc.ReadDataset(ctx, d, url)
	var dataset *snapshot.Dataset
	if err != nil {
		fmt.Fprintf(stderr, "tpcc check: --summary-json: the dataset was not read: %s\n", snapshot.RedactCredentials(err.Error()))
	} else {
		dataset = &ds
	}
	summary := tpcc.SummarizeCheck(res, time.Since(started))
	summary.Dataset = dataset
	body, err := json.Marshal(summary)
	if err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o644)
}
