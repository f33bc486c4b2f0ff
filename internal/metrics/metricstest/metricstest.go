// Package metricstest reads what the manager's metrics registry serves, for tests.
package metricstest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// RunSeries gathers the manager's registry and returns the tpcc_ series of one run as
// "name{label=value,...}" → value, labels sorted, namespace and run left out.
func RunSeries(t testing.TB, namespace, name string) map[string]float64 {
	t.Helper()
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), "tpcc_run_") {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			mine := 0
			for _, l := range m.GetLabel() {
				switch {
				case l.GetName() == "namespace" && l.GetValue() == namespace, l.GetName() == "run" && l.GetValue() == name:
					mine++
				case l.GetName() != "namespace" && l.GetName() != "run":
					labels = append(labels, l.GetName()+"="+l.GetValue())
				}
			}
			if mine != 2 {
				continue
			}
			sort.Strings(labels)
			v := m.GetGauge().GetValue()
			if m.Counter != nil {
				v = m.GetCounter().GetValue()
			}
			out[fmt.Sprintf("%s{%s}", f.GetName(), strings.Join(labels, ","))] = v
		}
	}
	return out
}
