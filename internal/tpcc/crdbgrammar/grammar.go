package crdbgrammar

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/cockroachdb/cockroachdb-parser/pkg/sql/parser"
	"github.com/cockroachdb/cockroachdb-parser/pkg/sql/pgwire/pgcode"
	"github.com/cockroachdb/cockroachdb-parser/pkg/sql/pgwire/pgerror"
	"github.com/cockroachdb/cockroachdb-parser/pkg/sql/sem/tree"
)

// Parsed is what CockroachDB's grammar says about one SQL text (one or more statements).
type Parsed struct {
	Tags []string // statement tags, e.g. "SELECT", "COPY", "CREATE TABLE"
	// Placeholders is the highest $n of the text (CockroachDB's NumPlaceholders).
	Placeholders int
	// PlaceholderTypes lists, per placeholder, the distinct types it is cast to in the text
	// as CockroachDB reads them ("$5" → ["DECIMAL"]).
	PlaceholderTypes map[int][]string
	// Canonical is the text as CockroachDB's formatter prints it back (FmtParsable).
	Canonical string
}

// Problem is a reason CockroachDB would not run a statement as sent, or not the way we intend.
type Problem struct {
	SQL    string
	Reason string
}

func (p Problem) String() string {
	return p.Reason + "\n    " + strings.Join(strings.Fields(p.SQL), " ")
}

// Parse parses sql with CockroachDB 25.2's grammar. A statement the grammar knows but CockroachDB
// does not implement fails here too, with the error naming it as unimplemented.
func Parse(sql string) (Parsed, error) {
	stmts, err := parser.Parse(sql)
	if err != nil {
		if pgerror.GetPGCode(err) == pgcode.FeatureNotSupported {
			return Parsed{}, fmt.Errorf("unimplemented in CockroachDB: %w", err)
		}
		return Parsed{}, err
	}
	p := Parsed{PlaceholderTypes: map[int][]string{}}
	if len(stmts) == 0 {
		// Only comments, like pgx's "-- ping": CockroachDB answers with an empty query response.
		p.Tags = []string{"(empty)"}
		return p, nil
	}
	var canon []string
	for _, s := range stmts {
		p.Tags = append(p.Tags, s.AST.StatementTag())
		p.Placeholders = max(p.Placeholders, s.NumPlaceholders)
		canon = append(canon, tree.AsStringWithFlags(s.AST, tree.FmtParsable))
	}
	p.Canonical = strings.Join(canon, "; ")
	// Casts of placeholders, read from the canonical text: the formatter prints every
	// placeholder cast the same way ($5::DECIMAL) whatever the input spelling (CAST($5 AS
	// numeric), $5::numeric).
	seen := map[int]map[string]bool{}
	for _, m := range placeholderCast.FindAllStringSubmatch(p.Canonical, -1) {
		var n int
		fmt.Sscan(m[1], &n)
		if seen[n] == nil {
			seen[n] = map[string]bool{}
		}
		if !seen[n][m[2]] {
			seen[n][m[2]] = true
			p.PlaceholderTypes[n] = append(p.PlaceholderTypes[n], m[2])
		}
	}
	for _, ts := range p.PlaceholderTypes {
		sort.Strings(ts)
	}
	return p, nil
}

var placeholderCast = regexp.MustCompile(`\$(\d+)::([A-Z][A-Z0-9]*(?:\[\])?)`)

// Check parses one sent statement and returns the problems CockroachDB would have with it:
//   - the grammar rejects it (syntax error or a feature CockroachDB does not implement);
//   - the parameters bound for it differ from its highest placeholder (CockroachDB's prepare
//     infers exactly NumPlaceholders parameters);
//   - one placeholder is cast to two different types (CockroachDB cannot type it);
//   - it reads AS OF SYSTEM TIME (the workload never reads stale data).
func Check(s Sent) (Parsed, []Problem) {
	p, err := Parse(s.SQL)
	if err != nil {
		return p, []Problem{{SQL: s.SQL, Reason: "CockroachDB's parser rejects it: " + firstLine(err.Error())}}
	}
	var out []Problem
	if s.BoundParams >= 0 && s.BoundParams != p.Placeholders {
		out = append(out, Problem{SQL: s.SQL, Reason: fmt.Sprintf(
			"%d parameters bound, CockroachDB's parser counts %d placeholders", s.BoundParams, p.Placeholders)})
	}
	for n, ts := range p.PlaceholderTypes {
		if len(ts) > 1 {
			out = append(out, Problem{SQL: s.SQL, Reason: fmt.Sprintf("$%d is cast to %s", n, strings.Join(ts, " and "))})
		}
	}
	if strings.Contains(p.Canonical, "AS OF SYSTEM TIME") {
		out = append(out, Problem{SQL: s.SQL, Reason: "reads AS OF SYSTEM TIME (stale reads are not TPC-C)"})
	}
	return p, out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
