package postgres

import (
	"strings"
	"testing"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestConnectionBudget(t *testing.T) {
	for _, c := range []struct {
		name        string
		warehouses  int32
		wait        benchv1.Wait
		connections int32
		maxConns    string // "" leaves it unset
		want        []string
	}{
		{"unset: sized, never refused", 18000, benchv1.WaitNone, 0, "", nil},
		// 2 000 warehouses on 4 pods of 500: 4 × 286 + 1 = 1 145, + 20.
		{"2 000 warehouses in 6", 2000, benchv1.WaitSpec, 0, "6",
			[]string{MaxConnectionsField + " is 6", "up to 1145 connections", "4 client pods", "at least 1165"}},
		{"exactly enough", 2000, benchv1.WaitSpec, 0, "1165", nil},
		{"one short", 2000, benchv1.WaitSpec, 0, "1164", []string{"at least 1165"}},
		// The spec's pool of 10 on 4 pods (41) is below the 16 loader pods' 80.
		{"the loaders' peak", 2000, benchv1.WaitSpec, 10, "50", []string{"up to 80 connections", "16 loader pods", "at least 100", "lower spec.workload.loader.pods"}},
		{"the spec's pool counts", 2000, benchv1.WaitSpec, 300, "1000", []string{"up to 1201 connections", "at least 1221", "spec.workload.clients.connections"}},
		// One warehouse: the load's pod (4 threads + schema) outnumbers the step's 3 + 1.
		{"the load's peak", 1, benchv1.WaitSpec, 0, "20", []string{"up to 5 connections", "1 loader pods"}},
		{"not a number", 10, benchv1.WaitSpec, 0, "many", []string{MaxConnectionsField, `"many"`}},
		{"zero", 10, benchv1.WaitSpec, 0, " 0 ", []string{MaxConnectionsField, "positive"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := &benchv1.PostgresSpec{}
			if c.maxConns != "" {
				spec.Parameters = map[string]string{"max_connections": c.maxConns}
			}
			r := run(spec)
			r.Spec.Workload = benchv1.WorkloadSpec{Warehouses: c.warehouses, Wait: c.wait, Clients: benchv1.ClientsSpec{Connections: c.connections}}
			_, err := Backend{}.Desired(r)
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("Desired: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Desired accepted max_connections %q", c.maxConns)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
