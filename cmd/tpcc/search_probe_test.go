package main

import (
	"testing"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// The probe floor of `tpcc search` is the operator's (its CRD rule spells it '30s'): one New-Order
// cycle, keying plus mean think time. The api package cannot import the workload (the manager links
// no database driver), so the two constants are kept equal here.
func TestMinSpecProbeMatchesTheOperator(t *testing.T) {
	if tpcc.MinSpecProbe != benchv1.MinSpecProbeDuration {
		t.Fatalf("tpcc.MinSpecProbe %v, benchv1.MinSpecProbeDuration %v: want them equal", tpcc.MinSpecProbe, benchv1.MinSpecProbeDuration)
	}
	if want := 30 * time.Second; tpcc.MinSpecProbe != want {
		t.Fatalf("tpcc.MinSpecProbe %v, want %v (18s keying + 12s mean think time), as the CRD's rule says", tpcc.MinSpecProbe, want)
	}
}
