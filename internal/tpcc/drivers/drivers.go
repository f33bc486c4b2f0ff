// Package drivers is the registry of the TPC-C drivers: the one place that lists the engines the
// workload speaks to, in the order they are documented. Commands and the k6 extension get their
// driver here by its --engine name; help texts that list engines build the list from here.
package drivers

import (
	"fmt"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/ydb"
)

// all lists the drivers in the order they are documented.
var all = []tpcc.Driver{pgwire.PostgresDriver(), pgwire.CockroachDriver(), ydb.Driver}

// All returns the drivers in the order they are documented.
func All() []tpcc.Driver { return append([]tpcc.Driver(nil), all...) }

// Names returns the --engine values in the order they are documented.
func Names() []string {
	out := make([]string, len(all))
	for i, d := range all {
		out[i] = d.Name()
	}
	return out
}

// Lookup returns the driver of an --engine value (case-insensitive), naming the accepted values
// on error.
func Lookup(name string) (tpcc.Driver, error) {
	for _, d := range all {
		if strings.EqualFold(name, d.Name()) {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown engine %q: want one of %s", name, strings.Join(Names(), ", "))
}

// With returns the drivers whose capabilities satisfy has, in the registry's order.
func With(has func(tpcc.Capabilities) bool) []tpcc.Driver {
	var out []tpcc.Driver
	for _, d := range all {
		if has(d.Capabilities()) {
			out = append(out, d)
		}
	}
	return out
}

// NamesOf returns the --engine values of ds.
func NamesOf(ds []tpcc.Driver) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Name()
	}
	return out
}

// TitlesOf returns the prose names of ds.
func TitlesOf(ds []tpcc.Driver) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Capabilities().Title
	}
	return out
}

// URLHelp describes the connection URL of every driver, drivers of one URL form together:
// "postgres://… (postgres, cockroach) or grpc(s)://host:port/database (ydb)".
func URLHelp() string {
	var forms []string
	names := map[string][]string{}
	for _, d := range all {
		f := d.Capabilities().URLForm
		if _, ok := names[f]; !ok {
			forms = append(forms, f)
		}
		names[f] = append(names[f], d.Name())
	}
	parts := make([]string, len(forms))
	for i, f := range forms {
		parts[i] = f + " (" + strings.Join(names[f], ", ") + ")"
	}
	return tpcc.JoinNames(parts, "or")
}

// DefaultIsolationHelp describes every driver's default isolation level, drivers of one default
// together: "read committed with row locks on postgres, serializable on cockroach and ydb".
func DefaultIsolationHelp() string {
	var notes []string
	names := map[string][]string{}
	for _, d := range all {
		n := d.Capabilities().DefaultIsolationNote
		if _, ok := names[n]; !ok {
			notes = append(notes, n)
		}
		names[n] = append(names[n], d.Name())
	}
	parts := make([]string, len(notes))
	for i, n := range notes {
		parts[i] = n + " on " + tpcc.JoinNames(names[n], "and")
	}
	return strings.Join(parts, ", ")
}

// ResultsURLForm is the form of the results database's URI, for help texts: the results are
// recorded in PostgreSQL (internal/results).
func ResultsURLForm() string { return pgwire.Postgres.Capabilities().URLForm }
