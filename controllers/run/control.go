package run

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Secrets: create the run's control Secret (get is granted for the database's connection
// Secrets already; the control Secret is read back with it, one by one, never listed or watched).
// NetworkPolicies: create the client pods' ingress policy, with --client-network-policy only, and
// read it back after a restart (createOwned checks that one of that name is the run's).
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=create;get

// controlToken is a run's control token as this process read it from the run's Secret.
type controlToken struct {
	uid   types.UID
	token string
}

// controlContext returns ctx carrying the run's control token (snapshot.WithToken), so that every
// request the reconcile sends to the run's client pods presents it. On a run's first step it
// creates the run's control Secret — a fresh random token, owned by the run, immutable — and,
// with Config.ClientNetworkPolicy, the NetworkPolicy that admits only the operator's pods to the
// client pods' port; both before the step's Job, so no client pod runs unguarded. The token is
// read back from the Secret (a restarted operator presents the one the running pods hold) and kept
// in memory for the run; it never reaches a log, an event, the status or a report. A Secret of that
// name the run does not control fails the run: its token could be known to whoever made it.
func (r *Reconciler) controlContext(ctx context.Context, run *benchv1.BenchmarkRun) (context.Context, error) {
	key := client.ObjectKeyFromObject(run)
	if v, ok := r.controlTokens.Load(key); ok && v.(controlToken).uid == run.UID {
		return snapshot.WithToken(ctx, v.(controlToken).token), nil
	}
	if operator := r.Config.ClientNetworkPolicy; operator != nil {
		if err := r.createOnce(ctx, run, jobs.ClientNetworkPolicy(run, *operator)); err != nil {
			return ctx, err
		}
	}
	token, err := snapshot.NewToken()
	if err != nil {
		return ctx, err
	}
	if err := r.createOnce(ctx, run, jobs.ControlSecret(run, token)); err != nil {
		return ctx, err
	}
	name := jobs.ControlSecretName(run)
	secret := &corev1.Secret{}
	if err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, secret); err != nil {
		return ctx, fmt.Errorf("reading the control Secret %s: %w", name, err)
	}
	if !metav1.IsControlledBy(secret, run) {
		return ctx, r.fail(ctx, run, "ControlSecretConflict", fmt.Sprintf(
			"Secret %s exists and is not controlled by this run: its token guards the client pods' start and stop, so the operator uses only one it made; delete the Secret or rename the run", name))
	}
	stored := string(secret.Data[jobs.ControlTokenKey])
	if err := snapshot.CheckToken(stored); err != nil {
		return ctx, r.fail(ctx, run, "ControlSecretInvalid", fmt.Sprintf("Secret %s key %s: %v", name, jobs.ControlTokenKey, err))
	}
	r.controlTokens.Store(key, controlToken{uid: run.UID, token: stored})
	return snapshot.WithToken(ctx, stored), nil
}

// forgetControlToken drops a deleted run's token from memory.
func (r *Reconciler) forgetControlToken(key types.NamespacedName) {
	r.controlTokens.Delete(key)
}
