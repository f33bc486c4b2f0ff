package tpcc

import (
	"strings"
	"testing"
)

func TestParseTablePersistence(t *testing.T) {
	for in, want := range map[string]TablePersistence{"logged": TablesLogged, "unlogged": TablesUnlogged} {
		if got, err := ParseTablePersistence(in); got != want || err != nil {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	if _, err := ParseTablePersistence("Unlogged"); err == nil || !strings.Contains(err.Error(), "--tables") {
		t.Errorf("Unlogged: %v, want an error naming --tables", err)
	}
}
