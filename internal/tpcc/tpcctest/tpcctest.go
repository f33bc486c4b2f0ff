// Package tpcctest holds what the tests of the TPC-C drivers share: a fixed generator and its
// rows, and a no-wait burst of the five transactions against any tpcc.Executor. Only tests import
// it.
package tpcctest

import (
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// Now is the load time of the generator's rows.
var Now = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// Generator is a generator with a fixed seed and fixed constants, rows dated Now.
func Generator() *tpcc.Generator {
	return &tpcc.Generator{Seed: 42, Constants: tpcc.Constants{CLoad: 157, CRun: 223, CID: 259, OLIID: 7911}, Now: Now}
}

// Source is g's rows of table t for warehouse w; it panics on a table g cannot generate.
func Source(g *tpcc.Generator, t tpcc.Table, w int) tpcc.RowSource {
	s, err := g.Source(t, w)
	if err != nil {
		panic(err)
	}
	return s
}

// Collect returns all rows of table t for warehouse w, with text values copied out.
func Collect(t testing.TB, g *tpcc.Generator, table tpcc.Table, w int) [][]tpcc.Value {
	t.Helper()
	src, err := g.Source(table, w)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]tpcc.Value
	row := make([]tpcc.Value, len(table.Columns))
	for src.Next(row) {
		cp := make([]tpcc.Value, len(row))
		for i, v := range row {
			cp[i] = v
			cp[i].Text = append([]byte(nil), v.Text...)
		}
		rows = append(rows, cp)
	}
	return rows
}

// ColIndex is the index of the named column of t; it panics when t has none.
func ColIndex(t tpcc.Table, name string) int {
	for i, c := range t.Columns {
		if c.Name == name {
			return i
		}
	}
	panic("no column " + name + " in " + t.Name)
}
