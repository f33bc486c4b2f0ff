package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
)

// `tpcc results write` as the operator's writer Job runs it: the record and the step files in a
// directory, the URI in a file (the mounted Secret key), its report in the termination log.
func TestResultsWrite(t *testing.T) {
	uri := pgtest.Database(t, pgtest.URL(t), "cli")
	dir := t.TempDir()
	end := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	step := benchv1.StepResult{Index: 0, ActiveWarehouses: 8, Kind: benchv1.StepFull, Duration: &metav1.Duration{Duration: 2 * time.Minute},
		TpmC: 100.5, Efficiency: 97.68, Compliant: true, Verdict: benchv1.VerdictCompliant, Attempt: 1}
	rec := outbox.Record{Version: outbox.Version, Kind: outbox.KindRun, Run: &outbox.Run{
		Object: outbox.Object{UID: "0d3b4c52-7d0f-4a55-9a1b-2f3c4d5e6f70", Namespace: "bench", Name: "demo", Created: end.Add(-10 * time.Minute)},
		Spec:   benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL}, Workload: benchv1.WorkloadSpec{Warehouses: 8}},
		Status: benchv1.BenchmarkRunStatus{Phase: benchv1.PhaseSucceeded, Steps: []benchv1.StepResult{step},
			Result: &benchv1.Result{MaxCompliantWarehouses: 8, TpmC: 100.5, Efficiency: 97.68, Step: new(int32)}},
		Steps: []outbox.StepFiles{{Index: 0, Data: outbox.StepDataFile(0)}},
		End:   &outbox.End{Phase: benchv1.PhaseSucceeded, Generation: 1, Time: end}}}
	body, err := outbox.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, outbox.RecordFile), body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, outbox.StepDir(0)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, outbox.StepDataFile(0)), []byte(`{"summary": {"tpmC": 100.5}, "histograms": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "uri")
	if err := os.WriteFile(secret, []byte(uri+"\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	termination := filepath.Join(t.TempDir(), "termination-log")
	report := func() outbox.WriterReport {
		var rep outbox.WriterReport
		body, err := os.ReadFile(termination)
		if err != nil || json.Unmarshal(body, &rep) != nil {
			t.Fatalf("termination log: %v: %s", err, body)
		}
		return rep
	}

	code, out, errs := runCLI(t, "results", "write", "--input", dir, "--url-file", secret, "--termination-log", termination)
	if code != 0 || !strings.Contains(out, "wrote BenchmarkRun bench/demo: 1 of 1 steps new, its end written") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if rep := report(); rep.Error != "" || !strings.Contains(rep.Written, "1 of 1 steps new") {
		t.Errorf("termination log %+v", rep)
	}
	code, out, _ = runCLI(t, "results", "write", "--input", dir, "--url-file", secret)
	if code != 0 || !strings.Contains(out, "0 of 1 steps new, its end already there") {
		t.Errorf("written again (exit %d): %s", code, out)
	}
	code, out, _ = runCLI(t, "results", "migrate", "--url", uri)
	if code != 0 || !strings.Contains(out, "schema tpcc at version 3 (applied now: [])") {
		t.Errorf("migrate (exit %d): %s", code, out)
	}

	// A database that does not answer: exit 1, the reason in the termination log, no password.
	down := filepath.Join(t.TempDir(), "uri")
	if err := os.WriteFile(down, []byte("postgres://app:hunter2@127.0.0.1:1/app?connect_timeout=2"), 0o400); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCLI(t, "results", "write", "--input", dir, "--url-file", down, "--termination-log", termination, "--attempts", "1")
	if rep := report(); code != 1 || !strings.Contains(rep.Error, "connecting to the results database") || strings.Contains(rep.Error+errs, "hunter2") {
		t.Errorf("exit %d, termination log %+v, stderr %s", code, rep, errs)
	}

	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"results"}, "usage: tpcc results write"},
		{[]string{"results", "write", "--url", uri}, "--input is required"},
		{[]string{"results", "migrate"}, "--url-file, --url or env TPCC_RESULTS_URL is required"},
		{[]string{"results", "write", "--input", t.TempDir(), "--url", uri}, "record.json: no such file"},
	} {
		t.Setenv("TPCC_RESULTS_URL", "")
		if code, _, errs := runCLI(t, bad.args...); code == 0 || !strings.Contains(errs, bad.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", bad.args, code, errs, bad.want)
		}
	}
}
