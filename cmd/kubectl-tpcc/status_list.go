package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// list is `kubectl tpcc status` without NAME: the runs and suites of the namespace (every namespace
// with -A), a line each.
func list(ctx context.Context, o *options) error {
	k, err := connect(o.config, o.all)
	if err != nil {
		return err
	}
	var opts []client.ListOption
	if !k.all {
		opts = append(opts, client.InNamespace(k.namespace))
	}
	runs := &benchv1.BenchmarkRunList{}
	if err := k.c.List(ctx, runs, opts...); err != nil {
		return apiError(err, "list", resRuns, k.listNamespace(), "")
	}
	suites := &benchv1.BenchmarkSuiteList{}
	if err := k.c.List(ctx, suites, opts...); err != nil {
		return apiError(err, "list", resSuites, k.listNamespace(), "")
	}
	if len(runs.Items) == 0 && len(suites.Items) == 0 {
		where := "in namespace " + k.namespace
		if k.all {
			where = "in any namespace"
		}
		fmt.Fprintf(o.stderr, "no BenchmarkRuns or BenchmarkSuites %s\n", where)
		return nil
	}
	fmt.Fprint(o.stdout, listTable(runs.Items, suites.Items, k.all, o.now()))
	return nil
}

// listNamespace is the namespace a list names in its errors ("" for every namespace).
func (k *cluster) listNamespace() string {
	if k.all {
		return ""
	}
	return k.namespace
}

// listRow is one line of the listing.
type listRow struct {
	namespace, kind, name, phase, progress, result string
	key                                            string // the order within a namespace
	created                                        time.Time
}

// listTable renders runs and suites by namespace, then name: a suite's runs (labelled with it) come
// under the suite. Pure: now only ages the rows.
func listTable(runs []benchv1.BenchmarkRun, suites []benchv1.BenchmarkSuite, all bool, now time.Time) string {
	var rows []listRow
	for _, s := range suites {
		result := "-"
		if s.Status.Leader != "" {
			result = "leader " + s.Status.Leader
		}
		rows = append(rows, listRow{namespace: s.Namespace, kind: "suite", name: s.Name, phase: phaseOf(s.Status.Phase),
			progress: orDash(s.Status.Progress) + " runs", result: result, key: s.Name, created: s.CreationTimestamp.Time})
	}
	for _, r := range runs {
		kind, key := "run", r.Name
		if suite := r.Labels[benchv1.SuiteLabel]; suite != "" {
			kind, key = "run of "+suite, suite+"/"+r.Name // listed under its suite
		}
		rows = append(rows, listRow{namespace: r.Namespace, kind: kind, name: r.Name, key: key, phase: phaseOf(r.Status.Phase),
			progress: runProgress(&r), result: runResult(&r), created: r.CreationTimestamp.Time})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].namespace != rows[j].namespace {
			return rows[i].namespace < rows[j].namespace
		}
		return rows[i].key < rows[j].key
	})
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	if all {
		fmt.Fprint(tw, "NAMESPACE\t")
	}
	fmt.Fprint(tw, "KIND\tNAME\tPHASE\tPROGRESS\tRESULT\tAGE\n")
	for _, r := range rows {
		if all {
			fmt.Fprintf(tw, "%s\t", r.namespace)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.kind, r.name, r.phase, r.progress, r.result, duration.HumanDuration(now.Sub(r.created)))
	}
	_ = tw.Flush()
	return b.String()
}

// runProgress is where a run is: loading, the step under way, or the steps recorded.
func runProgress(r *benchv1.BenchmarkRun) string {
	switch {
	case r.Status.Current != nil:
		c := r.Status.Current
		return fmt.Sprintf("step %d at %d warehouses", c.Index, c.ActiveWarehouses)
	case r.Status.Phase == benchv1.PhaseLoading && r.Status.Load != nil:
		return fmt.Sprintf("loaded %d/%d warehouses", r.Status.Load.WarehousesLoaded, r.Status.Load.Warehouses)
	case len(r.Status.Steps) > 0:
		return fmt.Sprintf("%d steps", len(r.Status.Steps))
	}
	return "-"
}

// runResult is a run's result (tpmC at the largest compliant load, "≥" and the bound when it is
// a floor), or why it failed.
func runResult(r *benchv1.BenchmarkRun) string {
	if res := r.Status.Result; res != nil && res.MaxCompliantWarehouses > 0 {
		if b := res.EffectiveBound(r.Spec.Workload.Warehouses); b.Floor() {
			return fmt.Sprintf("≥ %.1f tpmC at %s warehouses (%s: a floor)", res.TpmC, b.Warehouses(res.MaxCompliantWarehouses), b)
		}
		return fmt.Sprintf("%.1f tpmC at %d warehouses", res.TpmC, res.MaxCompliantWarehouses)
	}
	if r.Status.Phase == benchv1.PhaseFailed {
		for _, c := range r.Status.Conditions {
			if c.Type == benchv1.ConditionFailed && c.Status == "True" {
				return c.Reason
			}
		}
	}
	return "-"
}
