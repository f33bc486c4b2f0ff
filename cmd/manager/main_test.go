package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/controllers/run"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// The manager binary's entry point serves health, readiness and metrics, and takes the leader lease.
func TestManagerServesProbesAndMetrics(t *testing.T) {
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer env.Stop()

	ctx, cancel := context.WithCancel(context.Background())
	opts := managerOptions{
		metricsAddr: freeAddr(t), probeAddr: freeAddr(t),
		leaderElect: true, leaderElectionNamespace: "default", namespaces: "default, bench",
		reconciler: run.Config{MaxConcurrentReconciles: 3},
	}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, env.Config, opts) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager returned %v", err)
		}
	}()

	get := func(url string) (string, error) {
		resp, err := http.Get(url)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("%s: %s", url, resp.Status)
		}
		return string(body), nil
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, path := range []string{"/healthz", "/readyz"} {
		for {
			_, err := get("http://" + opts.probeAddr + path)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never answered OK: %v", path, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for {
		body, err := get("http://" + opts.metricsAddr + "/metrics")
		if err == nil && strings.Contains(body, `leader_election_master_status{name="tpcc-operator.bench.oltp.io"} 1`) {
			// --max-concurrent-reconciles reaches both controllers.
			for _, c := range []string{"benchmarkrun", "benchmarksuite"} {
				if want := `controller_runtime_max_concurrent_reconciles{controller="` + c + `"} 3`; !strings.Contains(body, want) {
					t.Errorf("metrics lack %s", want)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never showed the leader lease held: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestSplitNamespaces(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", " a, b ,,c ": "a|b|c"} {
		if got := strings.Join(splitNamespaces(in), "|"); got != want {
			t.Errorf("splitNamespaces(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOperatorPodsFlags(t *testing.T) {
	if p, err := operatorPods(false, "", ""); p != nil || err != nil {
		t.Fatalf("without --client-network-policy: %v, %v", p, err)
	}
	p, err := operatorPods(true, "tpcc-operator-system", "app.kubernetes.io/name=tpcc-operator, app.kubernetes.io/component=manager")
	if err != nil || p.Namespace != "tpcc-operator-system" || len(p.Labels) != 2 || p.Labels["app.kubernetes.io/component"] != "manager" {
		t.Fatalf("operatorPods = %+v, %v", p, err)
	}
	for _, tc := range []struct{ namespace, labels, want string }{
		{"", "a=b", "needs --operator-namespace"},
		{"Not_A_Namespace", "a=b", "--operator-namespace \"Not_A_Namespace\""},
		{"ns", "", "needs --operator-pod-labels"},
		{"ns", "a in (b)", "--operator-pod-labels \"a in (b)\""},
		{"ns", "a=b=c", "--operator-pod-labels"},
	} {
		if _, err := operatorPods(true, tc.namespace, tc.labels); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("operatorPods(%q, %q) = %v, want %q", tc.namespace, tc.labels, err, tc.want)
		}
	}
}
