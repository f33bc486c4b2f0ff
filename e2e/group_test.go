//go:build e2e

package e2e

import "testing"

// TestFailoverSuiteAndPlugin runs side by side the cases that bring up databases of their own one
// at a time: the failover run, the demo suite (three runs, one after the other) and the plugin's
// run. Side by side they take as long as the suite, not the three in a row. The group is itself
// parallel: it runs beside the other parallel cases (hack/e2e.sh runs them all at once, -parallel
// 8) once TestNodeLoss, the only sequential case, has run alone.
func TestFailoverSuiteAndPlugin(t *testing.T) {
	t.Parallel()                                    // beside the other parallel cases, after TestNodeLoss
	t.Cleanup(func() { uninstallFaultInjector(t) }) // after the cases that use it
	t.Run("PostgresFailover", func(t *testing.T) { t.Parallel(); testPostgresFailover(t) })
	t.Run("DemoSuite", func(t *testing.T) { t.Parallel(); testDemoSuite(t) })
	t.Run("PluginFollowsAndReports", func(t *testing.T) { t.Parallel(); testPluginFollowsAndReports(t) })
	t.Run("NetworkFaults", func(t *testing.T) { t.Parallel(); testNetworkFaults(t) })
	t.Run("Adversity", func(t *testing.T) { t.Parallel(); testAdversity(t) })
}
