package suite

import (
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/resultsdb"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/controllers/run"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
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

// testConfig is the run reconciler's configuration in the suite's tests: fast polls, the fake
// client pods' snapshot URLs.
func testConfig(pods *ct.ClientPods) run.Config {
	cfg := run.DefaultConfig()
	cfg.PollInterval = 100 * time.Millisecond
	cfg.Jobs = jobs.Config{ClientImage: "tpcc:test"}
	cfg.SnapshotURL = pods.URL
	return cfg
}

// startSuiteManager runs the BenchmarkRun and BenchmarkSuite reconcilers for one namespace, as the
// operator's manager does.
func startSuiteManager(t *testing.T, namespace string, cfg run.Config) *ct.Manager {
	t.Helper()
	return ct.StartManager(t, namespace, func(mgr ctrl.Manager) error {
		runs := &run.Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("tpcc-operator"), Config: cfg}
		if err := runs.SetupWithManager(mgr); err != nil {
			return err
		}
		suites := &Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: mgr.GetEventRecorder("tpcc-operator"), PollInterval: cfg.PollInterval,
			Results: cfg.Results, Jobs: cfg.Jobs}
		return suites.SetupWithManager(mgr)
	})
}

// resultsConfig is testConfig with a results database that backs off quickly.
func resultsConfig(pods *ct.ClientPods) run.Config {
	cfg := testConfig(pods)
	cfg.Results = resultsdb.Config{Backoff: 200 * time.Millisecond, MaxBackoff: time.Second}
	return cfg
}
