//go:build e2e

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Two tiers share this suite. `make e2e` (and CI) runs the cases that each prove a path no other
// check covers, within the CI budget on a 2-core machine; `make e2e-long` (E2E_LONG=1) adds the
// cases that take a quarter of an hour each there — the loss of a node, a failover under load, a
// suite of three runs, a guided search to the boundary, the demo's placement on a run of its own,
// provoked bottlenecks, a sustained phase broken on purpose — and runs before a release or after a
// change to their paths. docs/testing.md lists both tiers and what each case costs.
func longCase(t *testing.T, minutes int, what string) {
	t.Helper()
	if os.Getenv("E2E_LONG") != "1" {
		t.Skipf("long case (~%d min on a 2-core machine): %s — make e2e-long (E2E_LONG=1) runs it", minutes, what)
	}
}

// demoRun is the run of `make demo` that the demo's cases read instead of a run of their own
// (E2E_DEMO_RUN=namespace/name; .ci/run runs make demo beside the suite, so the run may still be
// under way: they wait up to demoRunTimeout for it to end), or a zero key.
func demoRun(t *testing.T) client.ObjectKey {
	t.Helper()
	v := os.Getenv("E2E_DEMO_RUN")
	if v == "" {
		return client.ObjectKey{}
	}
	ns, name, ok := strings.Cut(v, "/")
	if !ok || ns == "" || name == "" {
		t.Fatalf("E2E_DEMO_RUN=%q: want namespace/name of a BenchmarkRun", v)
	}
	key := client.ObjectKey{Namespace: ns, Name: name}
	if err := k8s.Get(context.Background(), key, &benchv1.BenchmarkRun{}); err != nil {
		t.Fatalf("E2E_DEMO_RUN=%s: %v", v, err)
	}
	return key
}

// demoRunTimeout bounds the wait for make demo's run to end: beside the suite's other cases it is
// slower than the ~14 minutes it takes alone, and the suite's own timeout is 40 minutes.
const demoRunTimeout = 50 * time.Minute
