package report

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

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
			md := RunMarkdown(run, *run.Status.Result)
			page := RunHTML(RunInput{Run: run, Result: *run.Status.Result})
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
	if md := RunMarkdown(external, *external.Status.Result); !strings.Contains(md, "Durability: not known: an external database the operator did not deploy.") {
		t.Errorf("external run: %s", md)
	}
}
