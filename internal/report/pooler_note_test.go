package report

import (
	"strings"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// A run's report says the pooler its clients went through, and nothing without one.
func TestPoolerSentence(t *testing.T) {
	pooled := "through PgBouncer (CloudNativePG Pooler, 1 instance, transaction pooling, 3 server connections each)"
	if got := PoolerSentence(benchv1.DatabaseDescription{Pooler: pooled}); !strings.HasPrefix(got, "Connections: the steps' clients reached the database "+pooled+";") {
		t.Errorf("sentence %q", got)
	}
	if got := PoolerSentence(benchv1.DatabaseDescription{}); got != "" {
		t.Errorf("without a pooler: %q", got)
	}
}

// The pooler note names each database's pooler and those reached directly, and is silent when no
// database had one.
func TestPoolerNote(t *testing.T) {
	pooled := "through PgBouncer (CloudNativePG Pooler, 1 instance, transaction pooling, 20 server connections each)"
	for _, c := range []struct {
		name string
		dbs  []Database
		want string
	}{
		{"none", []Database{{Name: "pg"}, {Name: "crdb"}}, ""},
		{"one of two", []Database{{Name: "pg-pooled", Pooler: pooled}, {Name: "crdb"}},
			"pooler: the clients reached pg-pooled " + pooled + "; crdb directly: a pooler adds a hop to every transaction and caps the database's server connections, and its pods count among the database's resources"},
		{"all", []Database{{Name: "a", Pooler: pooled}, {Name: "b", Pooler: pooled}},
			"pooler: the clients reached a " + pooled + "; b " + pooled + ": a pooler adds a hop to every transaction and caps the database's server connections, and its pods count among the database's resources"},
	} {
		if got := poolerNote(c.dbs); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
