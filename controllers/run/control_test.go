package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// TestClientPodsObeyOnlyTheRunsToken runs a step through the manager against a real API server:
// the run gets a control Secret it owns, the step's pods mount it (never a literal in the pod
// spec), the operator's requests carry it — the fake pods, like the real client, refuse any request
// without it — and a stop sent from elsewhere while the step measures is refused, so the step
// measures its full length instead of ending when an outsider says so. With
// --client-network-policy the run also gets a NetworkPolicy admitting only the operator's pods.
func TestClientPodsObeyOnlyTheRunsToken(t *testing.T) {
	ns := ct.NewNamespace(t, "control-token")
	pods := ct.NewClientPods()
	pods.Speed = 10 // the minute measures in 6 s: time for an outsider's stop while it measures
	cfg := testConfig(pods)
	operator := jobs.OperatorPods{Namespace: "tpcc-operator-system", Labels: map[string]string{"app.kubernetes.io/name": "tpcc-operator", "app.kubernetes.io/component": "manager"}}
	cfg.ClientNetworkPolicy = &operator
	startManager(t, ns, cfg)

	run := ct.NewRun(ns, "guarded", 8, 8)
	run.Spec.Search.Mode = benchv1.SearchFixed
	ct.CreateLoaded(t, run)

	var outsiders int32
	var stepPods []*corev1.Pod
	done := ct.DriveSteps(t, run, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, func(step int, podsOfStep []*corev1.Pod) {
		stepPods = podsOfStep
		got := ct.GetRun(t, run)
		secret := &corev1.Secret{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "guarded-control"}, secret); err != nil {
			t.Fatalf("the run's control Secret: %v", err)
		}
		if !metav1.IsControlledBy(secret, got) || secret.Immutable == nil || !*secret.Immutable {
			t.Errorf("Secret %s: owners %v, immutable %v; want controlled by the run, immutable", secret.Name, secret.OwnerReferences, secret.Immutable)
		}
		token := string(secret.Data["token"])
		if len(token) != 64 {
			t.Errorf("token of %d characters, want 64 (32 random bytes, hex)", len(token))
		}
		// The token reaches the pods only through the Secret volume: nowhere in the Job or its pods.
		job := ct.GetJob(t, ns, jobs.StepJobName(run, int32(step)))
		spec, _ := json.Marshal(job)
		if strings.Contains(string(spec), token) {
			t.Error("the step Job holds the token literally")
		}
		np := &networkingv1.NetworkPolicy{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "guarded-client-ingress"}, np); err != nil {
			t.Fatalf("the run's NetworkPolicy: %v", err)
		}
		if !metav1.IsControlledBy(np, got) || np.Spec.Ingress[0].From[0].NamespaceSelector.MatchLabels[corev1.LabelMetadataName] != operator.Namespace {
			t.Errorf("NetworkPolicy %+v", np)
		}
		// Someone else on the cluster network: no token, or a wrong one. Sent while the step
		// measures (the operator has started the pods), a stop would end its measured interval.
		ct.Eventually(t, 10*time.Second, func() error {
			if got := ct.GetRun(t, run); got.Status.Current == nil || got.Status.Current.Elapsed == nil || got.Status.Current.Elapsed.Duration <= 0 {
				return fmt.Errorf("the step is not measuring yet: %+v", got.Status.Current)
			}
			return nil
		})
		for _, p := range podsOfStep {
			base := pods.URL(p.Status.PodIP)
			for _, r := range []struct{ method, path, authorization string }{
				{http.MethodPost, snapshot.PathStop, ""},
				{http.MethodPost, snapshot.PathStop, "Bearer " + strings.Repeat("0", 64)},
				{http.MethodPost, snapshot.PathStart, ""},
				{http.MethodGet, snapshot.PathSnapshot, ""},
			} {
				req, _ := http.NewRequest(r.method, base+r.path, nil)
				if r.authorization != "" {
					req.Header.Set("Authorization", r.authorization)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_ = resp.Body.Close()
				outsiders++
				if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s %s from outside: %d, want 401", r.method, r.path, resp.StatusCode)
				}
			}
			// The stops came while the pod measured, and it measures on.
			s, err := snapshot.Fetch(snapshot.WithToken(context.Background(), token), nil, base)
			if err != nil || s.Phase != snapshot.PhaseMeasuring {
				t.Errorf("after the outsiders' stop: %v, %v; want the pod still measuring", s, err)
			}
		}
	})

	if done.Status.Phase != benchv1.PhaseSucceeded || len(done.Status.Steps) != 1 {
		t.Fatalf("phase %s, %d steps: %+v", done.Status.Phase, len(done.Status.Steps), done.Status.Conditions)
	}
	s := done.Status.Steps[0]
	if s.StartTime == nil || s.EndTime == nil || s.EndTime.Sub(s.StartTime.Time) != time.Minute || !s.Compliant {
		t.Errorf("step measured %v to %v, compliant %v %v: want the full minute, the outsiders' stops refused", s.StartTime, s.EndTime, s.Compliant, s.Reasons)
	}
	// Every request without the token was one of the outsiders': the operator's all carried it.
	var refused int32
	for _, p := range stepPods {
		refused += pods.Server(p.Status.PodIP).Refused()
	}
	if refused != outsiders {
		t.Errorf("the pods refused %d requests, the outsiders sent %d: the operator sent requests without the token", refused, outsiders)
	}
}
