package run

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	ct "github.com/tpcc-operator/tpcc-operator/controllers/controllertest"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
)

func fixedRun(ns, name string, warehouses int32) *benchv1.BenchmarkRun {
	run := ct.NewRun(ns, name, warehouses, warehouses)
	run.Spec.Search.Mode = benchv1.SearchFixed
	run.Spec.Search.StartWarehouses = nil
	run.Spec.Database.Teardown = benchv1.TeardownRetain
	return run
}

// Load once, reuse: run pga loads 8 warehouses and keeps its database; run pgb reuses it — no
// loader, a dataset check instead, the data's growth recorded — and takes it over; a run asking
// for 16 warehouses of it is refused naming both counts, and one naming pga (whose database is
// pgb's now) is refused as someone else's; neither touches the database.
func TestRunReusesAKeptDatabase(t *testing.T) {
	ns := ct.NewNamespace(t, "reuse")
	pods := ct.NewClientPods()
	startManager(t, ns, testConfig(pods))
	ctx := context.Background()

	first := fixedRun(ns, "pga", 8)
	if err := k8s.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	ct.DeployAndLoad(t, first, nil)
	got := ct.DriveSteps(t, first, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if got.Status.Phase != benchv1.PhaseSucceeded || got.Status.Load.Dataset == nil || got.Status.Load.Dataset.Seed != "424242" {
		t.Fatalf("first run: phase %s, load %+v", got.Status.Phase, got.Status.Load)
	}
	kept := ct.GetCluster(t, ns, "pga-db")
	a := kept.GetAnnotations()
	if a[OwnerRunAnnotation] != "pga" || a[kube.OwnerUIDAnnotation] != string(got.UID) || !strings.Contains(a[DatasetAnnotation], `"warehouses":8`) || a[DatabaseSpecAnnotation] == "" {
		t.Fatalf("the kept database's annotations %v", a)
	}

	// pgb reuses it: the Cluster is not deployed anew, nothing is loaded.
	second := fixedRun(ns, "pgb", 8)
	second.Spec.Database.Reuse = &benchv1.ReuseSpec{Run: "pga"}
	if err := k8s.Create(ctx, second); err != nil {
		t.Fatal(err)
	}
	check := ct.GetJob(t, ns, "pgb-check")
	args := check.Spec.Template.Spec.Containers[0].Args
	if slices.Contains(args, "--load-time") || !slices.Contains(args, "--dataset-json") || len(check.Spec.Template.Spec.InitContainers) != 0 {
		t.Errorf("dataset check Job args %v, init containers %d", args, len(check.Spec.Template.Spec.InitContainers))
	}
	grown := ct.LoadedDataset(8)
	grown.Rows["orders"] += 1204
	grown.Rows["history"] += 1180
	grown.Rows["new_order"] += 37
	ct.CheckPod(t, check, grown)
	ct.SetJobProgress(t, check, "", 1, true)
	second = ct.DriveSteps(t, second, pods, ct.Boundary(100), &ct.JobUIDs{Seen: map[string][]types.UID{}}, nil)
	if second.Status.Phase != benchv1.PhaseSucceeded {
		t.Fatalf("second run: phase %s, conditions %+v", second.Status.Phase, second.Status.Conditions)
	}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: jobs.LoaderJobName(second)}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
		t.Errorf("a loader Job for the reusing run: %v", err)
	}
	l := second.Status.Load
	loaded := meta.FindStatusCondition(second.Status.Conditions, benchv1.ConditionDataLoaded)
	if l == nil || l.ReusedFrom != "pga" || l.Dataset == nil || l.Dataset.Growth["orders"] != 1204 || l.Dataset.Growth["new_order"] != 37 ||
		loaded == nil || loaded.Reason != "Reused" || !strings.Contains(loaded.Message, "orders +1204, history +1180, new_order +37") {
		t.Errorf("load %+v, DataLoaded %+v", l, loaded)
	}
	if second.Status.Database == nil || second.Status.Database.Name != "pga-db" || !strings.HasPrefix(second.Status.Database.Endpoint, "pga-db-rw.") || second.Status.DatabaseOf != "pga" {
		t.Errorf("database %+v: want pga's", second.Status.Database)
	}
	taken := ct.GetCluster(t, ns, "pga-db")
	if a := taken.GetAnnotations(); a[OwnerRunAnnotation] != "pgb" || a[kube.OwnerUIDAnnotation] != string(second.UID) {
		t.Errorf("the database was not taken over: %v", a)
	}

	// Refused before anything is written.
	for _, tc := range []struct {
		name, from string
		warehouses int32
		reason     string
		want       string
	}{
		{"pgc", "pgb", 16, benchv1.ReasonReuseMismatch, "the database holds 8 loaded warehouses, the run asks for 16"},
		{"pgd", "pga", 8, benchv1.ReasonDatabaseConflict, "pga-db is not the database run pga kept"},
		{"pge", "nobody", 8, benchv1.ReasonReuseUnavailable, "run nobody kept no Cluster nobody-db"},
		{"pgf", "pgb", 8, "", ""}, // the chain: pgb reused pga's database, which pgf may reuse from pgb
	} {
		run := fixedRun(ns, tc.name, tc.warehouses)
		run.Spec.Database.Reuse = &benchv1.ReuseSpec{Run: tc.from}
		before := ct.GetCluster(t, ns, "pga-db").GetResourceVersion()
		if err := k8s.Create(ctx, run); err != nil {
			t.Fatal(err)
		}
		if tc.reason == "" {
			ct.GetJob(t, ns, tc.name+"-check") // through the checks: the dataset check is under way
			if got := ct.GetRun(t, run); got.Status.DatabaseOf != "pga" || got.Status.Database == nil || got.Status.Database.Name != "pga-db" {
				t.Errorf("%s: databaseOf %q, database %+v: want pga's", tc.name, got.Status.DatabaseOf, got.Status.Database)
			}
			continue
		}
		failed := waitFailed(t, run)
		if failed.Reason != tc.reason || !strings.Contains(failed.Message, tc.want) {
			t.Errorf("%s: Failed %+v, want %s naming %q", tc.name, failed, tc.reason, tc.want)
		}
		if after := ct.GetCluster(t, ns, "pga-db").GetResourceVersion(); after != before {
			t.Errorf("%s changed the database (resourceVersion %s → %s)", tc.name, before, after)
		}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: tc.name + "-check"}, &batchv1.Job{}); !apierrors.IsNotFound(err) {
			t.Errorf("%s created its check Job: %v", tc.name, err)
		}
	}
}

// A reusing run waits while the run it names still runs.
func TestReuseWaitsForTheEarlierRun(t *testing.T) {
	ns := ct.NewNamespace(t, "reuse-wait")
	startManager(t, ns, testConfig(ct.NewClientPods()))
	first := fixedRun(ns, "pga", 4)
	second := fixedRun(ns, "pgb", 4)
	second.Spec.Database.Reuse = &benchv1.ReuseSpec{Run: "pga"}
	for _, r := range []*benchv1.BenchmarkRun{first, second} {
		if err := k8s.Create(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	ct.Eventually(t, 20*time.Second, func() error {
		c := meta.FindStatusCondition(ct.GetRun(t, second).Status.Conditions, benchv1.ConditionDatabaseReady)
		if c == nil || c.Reason != "WaitingForRun" || !strings.Contains(c.Message, "waiting for run pga to end") {
			return fmt.Errorf("DatabaseReady %+v", c)
		}
		return nil
	})
	body, _ := json.Marshal(ct.GetRun(t, second).Status)
	if strings.Contains(string(body), `"phase":"Failed"`) {
		t.Errorf("status %s", body)
	}
}
