package report

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestSizingLine(t *testing.T) {
	cases := []struct {
		sizing *benchv1.DatabaseSizing
		want   string
	}{
		{nil, ""},
		{&benchv1.DatabaseSizing{Memory: resource.MustParse("8Gi"), MemoryFrom: "request",
			Settings: map[string]string{"shared_buffers": "1GB", "max_connections": "221"}, UserSet: []string{"shared_buffers"}},
			"- sized from 8Gi of memory (request) per instance (docs/sizing.md): max_connections=221, shared_buffers=1GB (the run's)\n"},
	}
	for _, tc := range cases {
		if got := sizingLine(tc.sizing); got != tc.want {
			t.Errorf("sizingLine = %q, want %q", got, tc.want)
		}
	}
}

// A run's report says what a commit waits for; with fsync off it says no disk, never the
// synchronous_commit level, in both the Markdown and the HTML report.
func TestRunReportStatesDurability(t *testing.T) {
	cases := []struct {
		name       string
		parameters map[string]string
		want       string
		absent     string
	}{
		{"remote_apply", nil, "Durability: a commit waits for both synchronous standbys applied it (remote_apply).", ""},
		{"remote_apply with fsync off", map[string]string{"fsync": "off"},
			"Durability: a commit waits for no disk flush: fsync is off, so no instance writes a commit to disk before acknowledging it; " +
				"it can lose acknowledged commits, and corrupt its data, when an instance's operating system crashes or loses power.", "remote_apply"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := run20()
			run.Spec.Database.Postgres.Parameters = tc.parameters
			run.Status.Environment = nil // its settings list what the server reported, word for word
			md := RunMarkdown(described(run), *run.Status.Result)
			page := RunHTML(RunInput{Run: described(run), Result: *run.Status.Result})
			for name, doc := range map[string]string{"report.md": md, "report.html": page} {
				want := tc.want
				if name == "report.html" {
					want = esc(want)
				}
				if !strings.Contains(doc, want) {
					t.Errorf("%s lacks %q", name, tc.want)
				}
				if tc.absent != "" && strings.Contains(doc, tc.absent) {
					t.Errorf("%s says %q", name, tc.absent)
				}
			}
		})
	}
	external := run20()
	external.Spec.Database = benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "db"}}}
	if md := RunMarkdown(described(external), *external.Status.Result); !strings.Contains(md, "Durability: not known: an external database the operator did not deploy.") {
		t.Errorf("external run: %s", md)
	}
}

// A database deployed and loaded under loadResources says so, with both sets of resources and when
// it switched; any other run says nothing. The load resources come from the database's
// description, as its engine gives it.
func TestResourceSwitchLine(t *testing.T) {
	measured := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("150m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}
	loading := corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}}
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	run := func(load *corev1.ResourceRequirements, switched bool) *benchv1.BenchmarkRun {
		r := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL,
			Postgres: &benchv1.PostgresSpec{Resources: measured, LoadResources: load}}}}
		r.Status.Load = &benchv1.LoadStatus{CompletionTime: &metav1.Time{Time: at}}
		if switched {
			r.Status.Database = &benchv1.DatabaseStatus{ResourcesSwitchTime: &metav1.Time{Time: at.Add(151 * time.Second)}}
		}
		return r
	}
	cases := []struct {
		name string
		run  *benchv1.BenchmarkRun
		want string
	}{
		{"no loadResources", run(nil, false), ""},
		{"switched", run(&loading, true), "- each instance was deployed and loaded with requests none, limits memory=1Gi and measured with requests none, limits cpu=150m memory=1Gi: every instance ran with the latter 2m31s after the load ended, before the first step\n"},
		{"not yet", run(&loading, false), "- each instance was deployed and loaded with requests none, limits memory=1Gi and measured with requests none, limits cpu=150m memory=1Gi (not switched yet)\n"},
	}
	for _, c := range cases {
		if got := resourceSwitchLine(described(c.run)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A compliant step's row names the checks it left unjudged, with what judging them needs; a
// non-compliant or inconclusive step's row keeps to its reasons.
func TestStepRowsNameUnjudgedChecks(t *testing.T) {
	thin := []string{"mix minimums and audit windows not checked (4120 transactions, 10000 needed)"}
	for _, tc := range []struct {
		name    string
		verdict benchv1.StepVerdict
		reasons []string
		want    string
	}{
		{"compliant", benchv1.VerdictCompliant, nil, thin[0]},
		{"non-compliant", benchv1.VerdictNonCompliant, []string{"NewOrder p90 6.2s > 5s"}, "NewOrder p90 6.2s > 5s"},
		{"inconclusive", benchv1.VerdictInconclusive, []string{"time series: 2 of 60 intervals were not collected from every pod"},
			"time series: 2 of 60 intervals were not collected from every pod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := benchv1.StepResult{Index: 3, ActiveWarehouses: 20, Verdict: tc.verdict, Compliant: tc.verdict == benchv1.VerdictCompliant,
				Reasons: tc.reasons, Unjudged: thin}
			cells := stepCells(s)
			if got := cells[len(cells)-1]; got != tc.want {
				t.Errorf("reasons cell %q, want %q", got, tc.want)
			}
		})
	}
}
