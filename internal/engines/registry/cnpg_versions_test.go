package registry

import (
	"strings"
	"testing"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

// cnpgReleases are the CloudNativePG releases docs/supported-versions.md names, each with whether
// the manager's field check accepts its CRDs for a PostgreSQL run with every optional field set.
// cnpgReleases are the CloudNativePG releases at the edge of the range docs/supported-versions.md
// gives, each with whether the manager's field check accepts its CRDs for a PostgreSQL run with
// every optional field set (1.29.1, the version the e2e runs, is TestOperatorsSupportedWithTheirCRDs'
// in controllers/run). Measured once over 1.23.0–1.29.1: 1.23.0 lacks spec.postgresql.synchronous
// and spec.probes, 1.24.0 synchronous.dataDurability and failoverQuorum and spec.probes, 1.25.0 to
// 1.27.0 synchronous.failoverQuorum; 1.28.0 and 1.29.1 have every field.
var cnpgReleases = []struct {
	version  string
	accepted bool
}{
	{"v1.27.0", false},
	{"v1.28.0", true},
}

// TestCloudNativePGReleasesTheCheckAccepts installs each release's CRDs (from CloudNativePG's Go
// module) on an API server of its own and runs the manager's operator check against them: the range
// docs/supported-versions.md gives is what this accepts.
func TestCloudNativePGReleasesTheCheckAccepts(t *testing.T) {
	for _, r := range cnpgReleases {
		t.Run(r.version, func(t *testing.T) {
			env, err := testenv.StartWithCloudNativePG(r.version)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = env.Stop() }()
			checker, err := engines.NewOperatorChecker(env.Config)
			if err != nil {
				t.Fatal(err)
			}
			var support engines.Support
			deadline := time.Now().Add(time.Minute) // the schema is published shortly after the kind is served
			for {
				reports, err := Default().CheckOperators(checker)
				if err != nil {
					t.Fatal(err)
				}
				for _, rep := range reports {
					if rep.Engine == benchv1.EnginePostgreSQL {
						support = rep.Support
					}
				}
				if len(support.Unchecked) == 0 || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Second)
			}
			got := support.OK() && len(support.Unchecked) == 0
			t.Logf("CloudNativePG %s: accepted %v; missing %v, unknown fields %s", r.version, got, support.Missing, strings.Join(support.Unknown, "; "))
			if got != r.accepted {
				t.Errorf("CloudNativePG %s: accepted %v, docs/supported-versions.md says %v", r.version, got, r.accepted)
			}
		})
	}
}
