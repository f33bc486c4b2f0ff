package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// command is one documented shell command.
type command struct {
	file string
	line int
	text string // continuation lines joined, comment stripped, spaces collapsed
}

// block is one fenced code block; name is NAME of a `<!-- block: NAME -->` line right above it.
type block struct {
	file  string
	line  int
	info  string
	name  string
	lines []string
}

// docFiles are the Markdown files whose commands are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{filepath.Join("..", "README.md"), filepath.Join("..", "CONTRIBUTING.md")}
	more, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

var (
	fence  = regexp.MustCompile("^([ \t]*)```(.*)$")
	marker = regexp.MustCompile(`^<!-- block: (\S+) -->$`)
)

func blocks(t *testing.T, file string) []block {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	indent := 0
	name := ""
	for i, line := range strings.Split(string(data), "\n") {
		if cur == nil {
			if m := marker.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				name = m[1]
				continue
			}
		}
		if m := fence.FindStringSubmatch(line); m != nil {
			if cur == nil {
				cur = &block{file: filepath.Base(file), line: i + 1, info: strings.TrimSpace(m[2]), name: name}
				indent = len(m[1])
				name = ""
				continue
			}
			out = append(out, *cur)
			cur = nil
			continue
		}
		if cur == nil && strings.TrimSpace(line) != "" {
			name = "" // a marker names only the block right below it
		}
		if cur != nil {
			if len(line) >= indent && strings.TrimSpace(line[:indent]) == "" {
				line = line[indent:]
			}
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

// stripComment removes a shell comment (a # after whitespace, outside quotes).
func stripComment(s string) string {
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// commands extracts the commands of a block: every line of an sh block (continuations joined),
// the "$ " lines of a console transcript.
func commands(b block) []command {
	var out []command
	shell := b.info == "sh" || b.info == "bash" || b.info == "shell"
	pending, start := "", 0
	for i, raw := range b.lines {
		line := raw
		if b.info == "console" {
			if !strings.HasPrefix(line, "$ ") {
				continue
			}
			line = strings.TrimPrefix(line, "$ ")
		} else if !shell {
			continue
		}
		if pending == "" {
			start = b.line + 1 + i
		}
		trimmed := strings.TrimRight(line, " \t")
		if strings.HasSuffix(trimmed, "\\") {
			pending += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		text := strings.Join(strings.Fields(stripComment(pending+trimmed)), " ")
		pending = ""
		if text != "" {
			out = append(out, command{file: b.file, line: start, text: text})
		}
	}
	return out
}
