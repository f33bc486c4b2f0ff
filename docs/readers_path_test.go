package docs_test

// A newcomer's path through README and the docs, as tests: README stays short and starts with the
// two quick-start commands, every link resolves (file and heading), the docs index and the samples
// index are complete, and the project's CI history stays in docs/testing.md.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readmeWords is README's budget: read in five minutes.
const readmeWords = 1200

func TestREADMEIsShort(t *testing.T) {
	if n := len(strings.Fields(readFile(t, filepath.Join("..", "README.md")))); n > readmeWords {
		t.Errorf("README.md has %d words, more than %d: move detail into docs/", n, readmeWords)
	}
}

func TestREADMEQuickStartIsTwoCommands(t *testing.T) {
	for _, b := range blocks(t, filepath.Join("..", "README.md")) {
		if b.name != "quick-start" {
			continue
		}
		var got []string
		for _, c := range commands(b) {
			got = append(got, c.text)
		}
		if strings.Join(got, "; ") != "make demo; make test" {
			t.Errorf("README's quick start runs %q, want exactly make demo and make test", got)
		}
		return
	}
	t.Error("README.md has no quick-start block")
}

// history: CI runs by number, CI stops, and a particular CI run's date belong in docs/testing.md.
var history = []*regexp.Regexp{
	regexp.MustCompile(`\brun[0-9]+\b([^.]|$)`), // run16 (run20.md, run20.html are test data files)
	regexp.MustCompile(`(?i)\bstop [0-9]+`),     // "stop 35's CI"
	regexp.MustCompile(`(?i)\bin CI on\b|\bCI run of\b|\bCI's .{0,20} of 20[0-9]{2}`),
	regexp.MustCompile(`\buntil 20[0-9]{2}-[0-9]{2}-[0-9]{2}`), // a change's history, not the product
	regexp.MustCompile(`(?i)\bmeasured (in CI|on 20[0-9]{2})|\blast CI\b`),
	regexp.MustCompile(`(?i)\b(at|of) commit [0-9a-f]{7,}\b`), // a measurement tied to an old build
}

// code spans are example output and values (a timestamp in JSON, a --since date), not history.
var codeSpan = regexp.MustCompile("`[^`]*`")

var date = regexp.MustCompile(`\b20[0-9]{2}-[0-9]{2}-[0-9]{2}\b`)

func TestNoCIHistoryOutsideTesting(t *testing.T) {
	readme := readFile(t, filepath.Join("..", "README.md"))
	if d := date.FindString(readme); d != "" {
		t.Errorf("README.md names a date (%s): a measurement's history belongs in docs/testing.md", d)
	}
	for _, file := range docFiles(t) {
		if filepath.Base(file) == "testing.md" {
			continue
		}
		inFence := false
		for i, line := range strings.Split(readFile(t, file), "\n") {
			for _, re := range history {
				if m := re.FindString(line); m != "" {
					t.Errorf("%s:%d: %q is CI history: keep it in docs/testing.md", file, i+1, strings.TrimSpace(m))
				}
			}
			if fence.MatchString(line) {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			// A day in prose dates a measurement: state the current figure and its command instead.
			if d := date.FindString(codeSpan.ReplaceAllString(line, "")); d != "" {
				t.Errorf("%s:%d: %s dates a measurement: give the current figure and the command that measures it (history belongs in docs/testing.md)", file, i+1, d)
			}
		}
	}
}

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#{1,6} (.*)$`)
)

func TestLinksResolve(t *testing.T) {
	for _, file := range docFiles(t) {
		inFence := false
		for i, line := range strings.Split(readFile(t, file), "\n") {
			if fence.MatchString(line) {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				if err := resolve(file, target); err != "" {
					t.Errorf("%s:%d: link %s: %s", file, i+1, target, err)
				}
			}
		}
	}
}

// resolve says what is wrong with a relative link from file, or "".
func resolve(file, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	full := file
	if path != "" {
		full = filepath.Join(filepath.Dir(file), path)
		if _, err := os.Stat(full); err != nil {
			return "no such file"
		}
	}
	if anchor == "" || !strings.HasSuffix(full, ".md") {
		return ""
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return err.Error()
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil && slug(m[1]) == anchor {
			return ""
		}
	}
	return "no heading #" + anchor + " in " + full
}

// slug is GitHub's anchor for a heading.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '—' && r != '’':
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestDocsIndexListsEveryDoc(t *testing.T) {
	index := readFile(t, "README.md")
	docs, _ := filepath.Glob("*.md")
	for _, d := range docs {
		if d != "README.md" && !strings.Contains(index, "("+d+")") {
			t.Errorf("docs/README.md does not link %s", d)
		}
	}
	if !strings.Contains(readFile(t, filepath.Join("..", "README.md")), "(docs/README.md)") {
		t.Error("README.md does not link the docs index docs/README.md")
	}
}

func TestSamplesIndexListsEverySample(t *testing.T) {
	index := readFile(t, "samples.md")
	var samples []string
	_ = filepath.Walk(filepath.Join("..", "config", "samples"), func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".yaml") && info.Name() != "kustomization.yaml" {
			samples = append(samples, path)
		}
		return nil
	})
	for _, s := range samples {
		rel := strings.TrimPrefix(filepath.ToSlash(s), "../config/samples/")
		if !strings.Contains(index, "](../config/samples/"+rel+")") {
			t.Errorf("docs/samples.md has no line for config/samples/%s", rel)
		}
	}
}
