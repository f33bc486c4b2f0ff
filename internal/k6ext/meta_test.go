package k6ext

import (
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

func TestCheckLoaded(t *testing.T) {
	done := func(ws ...int) map[int]string {
		states := map[int]string{}
		for _, w := range ws {
			states[w] = tpcc.StateDone
		}
		return states
	}
	cases := []struct {
		name               string
		loaded             int
		states             map[int]string
		warehouses, active int
		want               string // substring of the error; "" accepted
	}{
		{name: "all loaded, all active", loaded: 4, states: done(1, 2, 3, 4), warehouses: 4, active: 4},
		{name: "fewer declared than loaded", loaded: 4, states: done(1, 2, 3, 4), warehouses: 2, active: 2},
		{name: "inactive warehouses need not be loaded", loaded: 4, states: done(1, 2), warehouses: 4, active: 2},
		{name: "more declared than loaded", loaded: 4, states: done(1, 2, 3, 4), warehouses: 5, active: 4,
			want: "--warehouses 5: the database holds 4 loaded warehouses (meta table " + tpcc.MetaTable + ")"},
		{name: "active warehouses not loaded", loaded: 6, states: done(1, 4, 6), warehouses: 6, active: 6,
			want: "--active-warehouses 6: warehouses 2-3,5 are not loaded (run tpcc load)"},
		{name: "a warehouse still loading", loaded: 2, states: map[int]string{1: tpcc.StateDone, 2: "loading"}, warehouses: 2, active: 2,
			want: "warehouses 2 are not loaded"},
		{name: "nothing loaded", loaded: 1, warehouses: 1, active: 1, want: "warehouses 1 are not loaded"},
	}
	for _, c := range cases {
		err := checkLoaded(tpcc.LoadedData{Meta: tpcc.Meta{Warehouses: c.loaded}, States: c.states}, c.warehouses, c.active)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
