package run

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/chunked"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
)

// A series larger than a ConfigMap holds is kept in parts beside it, through the real API
// server (which refuses an object over 1 MiB), and reads back whole; a shorter one later is one
// ConfigMap again, its stale parts ignored.
func TestSeriesSplitAcrossConfigMaps(t *testing.T) {
	ns := ct.NewNamespace(t, "series-split")
	run := ct.NewRun(ns, "long", 4, 2)
	if err := k8s.Create(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	r := &Reconciler{Client: k8s, APIReader: k8s, Scheme: env.Scheme}
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 2*chunked.MaxBytes+12345) // gzip output does not compress further
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	ctx := context.Background()
	if err := r.writeChunked(ctx, run, "long-step-0-series", big); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"long-step-0-series", "long-step-0-series-part-1", "long-step-0-series-part-2"} {
		cm := &corev1.ConfigMap{}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, cm); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !kube.OwnedBy(cm, run) {
			t.Errorf("%s is not the run's", name)
		}
	}
	got, found, err := r.readChunked(ctx, run, "long-step-0-series")
	if err != nil || !found || !bytes.Equal(got, big) {
		t.Fatalf("read back %d bytes (found %v, %v), want %d", len(got), found, err, len(big))
	}
	if err := r.writeChunked(ctx, run, "long-step-0-series", []byte("short")); err != nil {
		t.Fatal(err)
	}
	if got, _, err := r.readChunked(ctx, run, "long-step-0-series"); err != nil || string(got) != "short" {
		t.Fatalf("after shrinking: %q %v", got, err)
	}
}
