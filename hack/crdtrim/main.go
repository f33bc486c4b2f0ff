// Command crdtrim shortens the generated CRDs: inside every spec placement block (a `placement`
// property whose properties are clients, database and loader) it drops the descriptions nested
// below the four fields of a role (nodeSelector, tolerations, affinity, topologySpreadConstraints).
// Those descriptions are Kubernetes' own documentation of corev1.Affinity and its kin, repeated
// for every role: three copies in BenchmarkRun and six in BenchmarkSuite, which would put the
// suite's CRD past the 256 KiB that `kubectl apply` (client-side) can record in its annotation.
// The schema itself — every field, type and validation — is kept. `make manifests` and
// hack/verify.sh run it after controller-gen.
//
// usage: go run ./hack/crdtrim FILE...   (rewrites each file in place)
package main

import (
	"fmt"
	"os"
	"strings"
)

func main() {
	for _, path := range os.Args[1:] {
		in, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "crdtrim:", err)
			os.Exit(1)
		}
		out := trim(string(in))
		if out != string(in) {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "crdtrim:", err)
				os.Exit(1)
			}
		}
	}
}

// trim removes, inside each spec placement block, every description more deeply indented than
// the descriptions of a role's fields. It works on controller-gen's YAML layout (two-space
// indentation, a description's continuation lines indented deeper than its key).
func trim(doc string) string {
	lines := strings.Split(doc, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		out = append(out, line)
		if strings.TrimSpace(line) != "placement:" {
			continue
		}
		base := indent(line)
		end := i + 1
		for end < len(lines) && (strings.TrimSpace(lines[end]) == "" || indent(lines[end]) > base) {
			end++
		}
		block := lines[i+1 : end]
		if !isSpecPlacement(block, base) {
			continue
		}
		// placement (base) > properties (+2) > role (+4) > properties (+6) > field (+8) > its
		// description (+10): deeper descriptions are the embedded Kubernetes types'.
		limit := base + 10
		for j := 0; j < len(block); j++ {
			l := block[j]
			if d := indent(l); d > limit && strings.HasPrefix(strings.TrimSpace(l), "description:") {
				j = continuationEnd(block, j, d)
				continue
			}
			out = append(out, l)
		}
		i = end - 1
	}
	return strings.Join(out, "\n")
}

// isSpecPlacement: the block's properties are exactly the three roles.
func isSpecPlacement(block []string, base int) bool {
	roles := map[string]bool{}
	for _, l := range block {
		if indent(l) == base+4 && strings.HasSuffix(l, ":") {
			roles[strings.TrimSpace(strings.TrimSuffix(l, ":"))] = true
		}
	}
	return len(roles) == 3 && roles["clients"] && roles["database"] && roles["loader"]
}

// continuationEnd is the last line of the value that starts at line j (indented d): the lines
// after it indented deeper, and blank lines followed by such lines (a block scalar's empty lines).
func continuationEnd(block []string, j, d int) int {
	last := j
	for k := j + 1; k < len(block); k++ {
		if strings.TrimSpace(block[k]) == "" {
			continue
		}
		if indent(block[k]) <= d {
			break
		}
		last = k
	}
	return last
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
