package failure

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/troubleshooting.md's generated tables from the catalog")

var troubleshooting = filepath.Join("..", "..", "docs", "troubleshooting.md")

// docs/troubleshooting.md holds one table per kind between markers, rendered from the catalog:
// editing the catalog without `go test ./internal/failure -update` fails here.
func TestTroubleshootingTables(t *testing.T) {
	body, err := os.ReadFile(troubleshooting)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(body)
	for _, kind := range []Kind{Run, SuiteRun, Suite} {
		begin, end := "<!-- reasons: "+string(kind)+" -->\n", "<!-- end of reasons: "+string(kind)+" -->"
		i := strings.Index(doc, begin)
		j := strings.Index(doc, end)
		if i < 0 || j < i {
			t.Fatalf("%s: markers %q … %q are missing", troubleshooting, strings.TrimSpace(begin), end)
		}
		want := MarkdownTable(kind)
		if got := doc[i+len(begin) : j]; got != want {
			if !*update {
				t.Errorf("%s: the %s table differs from internal/failure's catalog; run `go test ./internal/failure -update`", troubleshooting, kind)
				continue
			}
			doc = doc[:i+len(begin)] + want + doc[j:]
		}
	}
	if *update {
		if err := os.WriteFile(troubleshooting, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCatalogEntriesAreComplete(t *testing.T) {
	camel := regexp.MustCompile(`^[A-Z][A-Za-z]+$`)
	seen := map[string]bool{}
	for _, r := range All() {
		if !camel.MatchString(r.Name) {
			t.Errorf("%q: a reason is one CamelCase word (a condition reason must be)", r.Name)
		}
		if seen[r.Name] {
			t.Errorf("%s: listed twice", r.Name)
		}
		seen[r.Name] = true
		if r.Kind == "" || r.Phase == "" || len(r.Meaning) < 40 || len(r.Action) < 40 {
			t.Errorf("%s: kind, phase, meaning and action are all required, in sentences", r.Name)
		}
	}
}

func TestHint(t *testing.T) {
	if got := Hint("LoadFailed", "demo"); !strings.Contains(got, "kubectl logs -l job-name=demo-load") {
		t.Errorf("Hint(LoadFailed, demo) = %q, want the loader's logs command for demo", got)
	}
	if got := Hint("NoSuchReason", "demo"); got != "" {
		t.Errorf("Hint of an unknown reason = %q, want empty", got)
	}
}
