// Package isolation names the isolation levels a run's transactions may run at, how SQL and the
// client's flags spell them, and how a server's report of the level it ran is checked. It is pure
// and links no driver, so the operator (which links none) and the client share one vocabulary;
// what a particular engine needs before it runs a level is its driver's.
package isolation

import (
	"errors"
	"fmt"
	"strings"
)

// Level is an isolation level, spelled as the API's workload.isolation.
type Level string

const (
	ReadCommitted  Level = "ReadCommitted"
	RepeatableRead Level = "RepeatableRead"
	Serializable   Level = "Serializable"
)

// Levels lists the levels, weakest first.
var Levels = []Level{ReadCommitted, RepeatableRead, Serializable}

// Parse reads a level as the API spells it (Serializable), as the client's flag does
// (serializable, repeatable-read) or as SQL does (REPEATABLE READ), in any case.
func Parse(s string) (Level, error) {
	norm := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	for _, l := range Levels {
		if norm == strings.ToLower(string(l)) {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown isolation level %q: want read-committed, repeatable-read or serializable", s)
}

// Flag is the client's --isolation value: read-committed, repeatable-read, serializable.
func (l Level) Flag() string {
	switch l {
	case ReadCommitted:
		return "read-committed"
	case RepeatableRead:
		return "repeatable-read"
	}
	return "serializable"
}

// SQL is the level as BEGIN ISOLATION LEVEL takes it (PostgreSQL, CockroachDB).
func (l Level) SQL() string {
	switch l {
	case ReadCommitted:
		return "READ COMMITTED"
	case RepeatableRead:
		return "REPEATABLE READ"
	}
	return "SERIALIZABLE"
}

// Reported is the level as SHOW transaction_isolation reports it (PostgreSQL, CockroachDB).
func (l Level) Reported() string { return strings.ToLower(l.SQL()) }

// FromReported reads SHOW transaction_isolation's answer.
func FromReported(s string) (Level, bool) {
	for _, l := range Levels {
		if strings.EqualFold(strings.TrimSpace(s), l.Reported()) {
			return l, true
		}
	}
	return "", false
}

// Check compares what the server reported for a transaction that asked for want. The error says
// what the server ran instead and, when hint has something to say about want (how the engine is
// made to run the level), that too, in parentheses; hint may be nil.
func Check(want Level, reported string, hint func(Level) string) error {
	got, ok := FromReported(reported)
	if ok && got == want {
		return nil
	}
	msg := fmt.Sprintf("isolation %s: asked for %s, the server runs the transaction as %q", want, want.SQL(), reported)
	if hint != nil {
		if h := hint(want); h != "" {
			msg += " (" + h + ")"
		}
	}
	return errors.New(msg)
}
