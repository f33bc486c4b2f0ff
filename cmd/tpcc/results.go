package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

var resultsCommand = command{name: "results", summary: "write a record into the results database (the operator's writer Jobs), or migrate its schema", run: runResults}

// runResults is `tpcc results write|migrate`: docs/results.md.
func runResults(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "write" && args[0] != "migrate") {
		fmt.Fprintln(stderr, "usage: tpcc results write --input DIR [--url-file FILE | --url URL] [--termination-log FILE]\n       tpcc results migrate [--url-file FILE | --url URL]")
		return 2
	}
	sub := args[0]
	fs := newFlagSet("results "+sub, stderr)
	url := fs.String("url", "", "the results database's URI, "+drivers.ResultsURLForm()+" (default: env TPCC_RESULTS_URL)")
	urlFile := fs.String("url-file", "", "a file holding the URI (the mounted Secret key): preferred to --url, which shows in the process list")
	input := fs.String("input", "", "write: the directory holding "+outbox.RecordFile+" and the step files it names")
	termination := fs.String("termination-log", "", "write: also leave the report (JSON) in this file, e.g. "+outbox.TerminationLog)
	attempts := fs.Int("attempts", 3, "connection attempts before giving up")
	if code, ok := parse(fs, args[1:]); !ok {
		return code
	}
	uri := *url
	if *urlFile != "" {
		body, err := os.ReadFile(*urlFile)
		if err != nil {
			fmt.Fprintf(stderr, "tpcc results %s: --url-file: %v\n", sub, err)
			return 2
		}
		uri = strings.TrimSpace(string(body))
	}
	if uri == "" {
		uri = os.Getenv("TPCC_RESULTS_URL")
	}
	if uri == "" {
		fmt.Fprintf(stderr, "tpcc results %s: --url-file, --url or env TPCC_RESULTS_URL is required\n", sub)
		return 2
	}
	if sub == "write" && *input == "" {
		fmt.Fprintln(stderr, "tpcc results write: --input is required")
		return 2
	}
	report := func(rep outbox.WriterReport) {
		if *termination == "" {
			return
		}
		body, _ := json.Marshal(rep)
		if len(body) > 4000 { // the kubelet keeps 4 KiB of a termination message
			rep.Baseline = nil
			rep.Error = truncate(rep.Error, 3000)
			body, _ = json.Marshal(rep)
		}
		if err := os.WriteFile(*termination, body, 0o644); err != nil {
			fmt.Fprintf(stderr, "tpcc results: --termination-log: %v\n", err)
		}
	}
	fail := func(err error) int {
		msg := results.Redact(err.Error(), uri)
		fmt.Fprintf(stderr, "tpcc results %s: %s\n", sub, msg)
		report(outbox.WriterReport{Error: msg})
		return 1
	}

	conn, err := results.Connect(ctx, uri, *attempts)
	if err != nil {
		return fail(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if sub == "migrate" {
		applied, err := results.Migrate(ctx, conn)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "schema %s at version %d (applied now: %v)\n", results.Schema, results.LatestVersion(), applied)
		return 0
	}
	body, err := os.ReadFile(filepath.Join(*input, outbox.RecordFile))
	if err != nil {
		return fail(err)
	}
	rec, err := outbox.Decode(body)
	if err != nil {
		return fail(err)
	}
	written, err := results.Write(ctx, conn, rec, os.DirFS(*input))
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", written)
	if b := written.Baseline; b != nil {
		if b.Found {
			fmt.Fprintf(stdout, "baseline: %s (uid %s), ended %s, %d databases with results\n", b.Suite, b.UID, b.Ended.Format("2006-01-02T15:04:05Z"), len(b.Databases))
		} else {
			fmt.Fprintf(stdout, "baseline: %s\n", b.Message)
		}
	}
	report(outbox.WriterReport{Written: written.String(), Baseline: written.Baseline})
	return 0
}

// truncate cuts s to at most n bytes, never inside a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
