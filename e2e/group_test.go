//go:build e2e

package e2e

import "testing"

// TestFailoverSuiteAndPlugin runs side by side the cases that bring up databases of their own one
// at a time: the failover run, the demo suite (three runs, one after the other) and the plugin's
// run. Side by side they take as long as the suite, not the three in a row; the parallel tests
// (TestPostgresSyncRun, TestClientAndManagerKilledDuringSteps) start after them, so at most three
// PostgreSQL clusters under test share the machine at once (beside the plugin case's one-instance
// results database).
func TestFailoverSuiteAndPlugin(t *testing.T) {
	t.Run("PostgresFailover", func(t *testing.T) { t.Parallel(); testPostgresFailover(t) })
	t.Run("DemoSuite", func(t *testing.T) { t.Parallel(); testDemoSuite(t) })
	t.Run("PluginFollowsAndReports", func(t *testing.T) { t.Parallel(); testPluginFollowsAndReports(t) })
}
