package run

import (
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var (
	env *testenv.Env
	// k8s is a direct (uncached) client of the envtest API server.
	k8s client.Client
)

func TestMain(m *testing.M) {
	ct.Main(m, func(e *testenv.Env, c client.Client) { env, k8s = e, c })
}

// startManager runs the run reconciler for one namespace until the test ends.
func startManager(t *testing.T, namespace string, cfg Config) *ct.Manager {
	t.Helper()
	return startManagerWith(t, namespace, cfg, nil)
}

// startManagerWith is startManager with the reconciler's client wrapped (nil: as it is).
func startManagerWith(t *testing.T, namespace string, cfg Config, wrap func(client.Client) client.Client) *ct.Manager {
	t.Helper()
	return ct.StartManager(t, namespace, func(mgr ctrl.Manager) error {
		c := mgr.GetClient()
		if wrap != nil {
			c = wrap(c)
		}
		r := &Reconciler{Client: c, Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("tpcc-operator"), Config: cfg}
		return r.SetupWithManager(mgr)
	})
}
