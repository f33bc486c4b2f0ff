package pgwire

import (
	"reflect"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// StatementTexts returns the text of every statement in the executor's table for flavour f: the
// BEGIN and each transaction's statements in every branch (by
// customer id and by last name). Tests use it to prove that a run of the executor sent each of
// them (internal/tpcc/crdbgrammar checks them against CockroachDB's grammar).
func StatementTexts(f *Flavour) ([]string, error) { return StatementTextsAt(f, "") }

// StatementTextsAt is StatementTexts at isolation level l ("" the flavour's default).
func StatementTextsAt(f *Flavour, l isolation.Level) ([]string, error) {
	s, err := newPgwireStatements(f, l)
	if err != nil {
		return nil, err
	}
	var out []string
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String {
			out = append(out, f.String())
		}
	}
	return out, nil
}

// ConditionSQL is the query of the consistency condition id (tpcc.Conditions) that the check
// runs, "" for an unknown id.
func ConditionSQL(id string) string { return conditionSQL[id] }

// LedgerTexts are the statements of flavour f's ledger read (ReadDistrictCounts), in the order it
// sends them.
func LedgerTexts(f *Flavour) []string { return []string{f.ledgerBegin, postgresLedgerCounts, "COMMIT"} }
