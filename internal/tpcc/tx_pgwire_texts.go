package tpcc

import (
	"reflect"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// PgwireStatementTexts returns the text of every statement in the executor's table for d
// (PostgreSQL or CockroachDB): the BEGIN and each transaction's statements in every branch (by
// customer id and by last name). Tests use it to prove that a run of the executor sent each of
// them (internal/tpcc/crdbgrammar checks them against CockroachDB's grammar).
func PgwireStatementTexts(d Dialect) ([]string, error) { return PgwireStatementTextsAt(d, "") }

// PgwireStatementTextsAt is PgwireStatementTexts at isolation level l ("" the dialect's default).
func PgwireStatementTextsAt(d Dialect, l isolation.Level) ([]string, error) {
	s, err := newPgwireStatements(d, l)
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
