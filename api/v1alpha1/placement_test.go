package v1alpha1_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// A suite database's placement is, role by role, its own block or else the suite's; an external
// database takes no database block from the suite.
func TestMergePlacement(t *testing.T) {
	a := &benchv1.PodPlacement{NodeSelector: map[string]string{"from": "database"}}
	b := &benchv1.PodPlacement{NodeSelector: map[string]string{"from": "suite"}}
	for _, tc := range []struct {
		name      string
		own, dflt *benchv1.Placement
		external  bool
		want      *benchv1.Placement
	}{
		{"neither", nil, nil, false, nil},
		{"suite only", nil, &benchv1.Placement{Database: b, Clients: b}, false, &benchv1.Placement{Database: b, Clients: b}},
		{"role by role", &benchv1.Placement{Database: a}, &benchv1.Placement{Database: b, Loader: b}, false, &benchv1.Placement{Database: a, Loader: b}},
		{"external takes no database block from the suite", nil, &benchv1.Placement{Database: b}, true, nil},
		{"external keeps the suite's other roles", nil, &benchv1.Placement{Database: b, Clients: b}, true, &benchv1.Placement{Clients: b}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := benchv1.MergePlacement(tc.own, tc.dflt, tc.external)
			if (got == nil) != (tc.want == nil) || (got != nil && (pick(got.Database) != pick(tc.want.Database) ||
				pick(got.Loader) != pick(tc.want.Loader) || pick(got.Clients) != pick(tc.want.Clients))) {
				t.Errorf("MergePlacement = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func pick(p *benchv1.PodPlacement) string {
	if p == nil {
		return ""
	}
	return p.NodeSelector["from"]
}

// A YDB database with its own placement.database is not reached by the suite's topology spread:
// the suite is accepted.
func TestSuitePlacementAccepted(t *testing.T) {
	suite := suiteManifest(t, "suite-placed", func(s map[string]any) {
		database(s, 1)["database"] = map[string]any{"engine": "YDB"}
		database(s, 1)["placement"] = map[string]any{"database": map[string]any{"nodeSelector": map[string]any{"pool": "ydb"}}}
		s["placement"] = map[string]any{
			"database": map[string]any{"topologySpreadConstraints": []any{spreadConstraint()}},
			"clients":  map[string]any{"nodeSelector": map[string]any{"pool": "clients"}},
		}
	})
	if err := k8s.Create(context.Background(), suite, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
		t.Fatalf("rejected: %v", err)
	}
}
