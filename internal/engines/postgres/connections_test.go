package postgres

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

func TestConnectionBudget(t *testing.T) {
	for _, c := range []struct {
		name        string
		warehouses  int32
		wait        benchv1.Wait
		connections int32
		maxConns    string // "" leaves it unset
		cpu         string // the instances' CPU request; "" declares none
		loadCPU     string // postgres.loadResources' CPU request; "" sets none
		want        []string
	}{
		{"unset: sized, never refused", 18000, benchv1.WaitNone, 0, "", "", "", nil},
		// 2 000 warehouses on 4 pods of 500: 4 × 286 + 1 = 1 145, + 20.
		{"2 000 warehouses in 6", 2000, benchv1.WaitSpec, 0, "6", "", "",
			[]string{MaxConnectionsField + " is 6", "up to 1145 connections", "4 client pods", "at least 1165"}},
		{"exactly enough", 2000, benchv1.WaitSpec, 0, "1165", "", "", nil},
		{"one short", 2000, benchv1.WaitSpec, 0, "1164", "", "", []string{"at least 1165"}},
		// The spec's pool of 10 on 4 pods (41) is below the 16 loader pods' 80.
		{"the loaders' peak", 2000, benchv1.WaitSpec, 10, "50", "", "", []string{"up to 80 connections", "16 loader pods", "at least 100", "lower spec.workload.loader.pods"}},
		{"the spec's pool counts", 2000, benchv1.WaitSpec, 300, "1000", "", "", []string{"up to 1201 connections", "at least 1221", "spec.workload.clients.connections"}},
		// One warehouse: the load's pod (4 threads + schema) outnumbers the step's 3 + 1.
		{"the load's peak", 1, benchv1.WaitSpec, 0, "20", "", "", []string{"up to 5 connections", "1 loader pods"}},
		// A 128-core primary: 32 loader pods of 5 connections, the same the loader Job starts.
		{"the loaders sized from the primary's CPU", 2000, benchv1.WaitSpec, 10, "150", "128", "",
			[]string{"up to 160 connections", "32 loader pods", "at least 180", "lower spec.workload.loader.pods"}},
		{"the load's CPU, not the steps'", 2000, benchv1.WaitSpec, 10, "50", "1", "64", []string{"up to 80 connections", "16 loader pods", "at least 100"}},
		{"a small database: fewer loaders", 2000, benchv1.WaitSpec, 10, "61", "8", "", nil}, // 2 pods' 10 below the steps' 41, + 20
		{"not a number", 10, benchv1.WaitSpec, 0, "many", "", "", []string{MaxConnectionsField, `"many"`}},
		{"zero", 10, benchv1.WaitSpec, 0, " 0 ", "", "", []string{MaxConnectionsField, "positive"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := &benchv1.PostgresSpec{}
			if c.maxConns != "" {
				spec.Parameters = map[string]string{"max_connections": c.maxConns}
			}
			if c.cpu != "" {
				spec.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c.cpu)}}
			}
			if c.loadCPU != "" {
				spec.LoadResources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(c.loadCPU)}}
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
