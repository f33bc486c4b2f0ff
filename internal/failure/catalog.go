// Package failure is the catalog of the reasons a BenchmarkRun or a BenchmarkSuite gives when it
// fails — the reason of its Failed and Ready conditions and of its Warning event — with what each
// means and what to do about it. It is pure data: the kubectl plugin prints the hint of a failed
// run's reason, docs/troubleshooting.md's tables are rendered from it (TestTroubleshootingTables),
// and the controllers' TestEveryFailureReasonIsCatalogued finds every reason the controllers can
// set (go/ast over controllers/run and controllers/suite) and requires an entry here for each, and nothing else here.
package failure

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

// Kind says which object a reason appears on.
type Kind string

const (
	// Run reasons end a BenchmarkRun: phase Failed, conditions Failed=True and Ready=False with the
	// reason, a Warning event with the reason.
	Run Kind = "BenchmarkRun"
	// SuiteRun reasons are recorded for one run of a BenchmarkSuite (status.runs[].reason) when the
	// suite itself decided the run failed; a run that failed on its own keeps its Run reason there.
	SuiteRun Kind = "BenchmarkSuite run"
	// Suite reasons end a BenchmarkSuite.
	Suite Kind = "BenchmarkSuite"
)

// Reason is one failure reason and its hint.
type Reason struct {
	// Name is the CamelCase reason as it appears in conditions, events and status.
	Name string
	Kind Kind
	// Phase is where the reason can occur (the phase the object was in).
	Phase string
	// Meaning says what happened, Action what to do; both in plain sentences, with the commands to
	// look closer. RUN stands for the run's name.
	Meaning, Action string
}

var catalog = withEngines([]Reason{
	{
		Name: "InvalidDatabase", Kind: Run, Phase: "Deploying",
		Meaning: "The database objects could not be built from spec.database (a combination admission cannot check, e.g. an engine's static configuration that does not fit its node count, or resources that do not convert); the message names the field.",
		Action:  "Fix spec.database and create the run again under a new name or after deleting this one (a run's spec is immutable).",
	},
	{
		Name: "DatabaseOperatorMissing", Kind: Run, Phase: "Deploying",
		Meaning: "The engine's database operator is not installed: its CRD ({crds}) does not exist in the cluster. The manager also logs this at start.",
		Action:  "Install the supported operator version (docs/operations.md: {versions}), then delete and re-create the run.",
	},
	{
		Name: "DatabaseOperatorUnsupported", Kind: Run, Phase: "Deploying",
		Meaning: "The engine's CRD exists but does not serve the API version the operator writes, or its schema lacks fields the run's database object uses (an older operator release); the message lists them.",
		Action:  "Upgrade the database operator to the supported version named in the message (`kubectl get crd NAME -o yaml` shows what is installed), then delete and re-create the run.",
	},
	{
		Name: "PlacementUnsatisfiable", Kind: Run, Phase: "Deploying",
		Meaning: "Before anything was deployed, the cluster's nodes could not hold the database: fewer schedulable nodes (not cordoned, not NotReady) matching placement.database's nodeSelector and required node affinity, with no NoSchedule or NoExecute taint it does not tolerate, than the database needs — one per instance under the default required pod anti-affinity (docs/placement.md). The message names the count it needs and found, and why each other node was left out. Without it the database's pods would stay Pending and the run fail with DatabaseNotReady after --database-ready-timeout.",
		Action:  "Add or uncordon nodes, or make placement.database (nodeSelector, nodeAffinity, tolerations) match the nodes you have; or deploy fewer instances; or let instances share nodes with `placement.database.affinity.podAntiAffinity: {}` (the report then says the database does not survive the loss of a machine). Then delete and re-create the run.",
	},
	{
		Name: "DatabaseNotReady", Kind: Run, Phase: "Deploying, Loading, Running",
		Meaning: "The database was not ready within the manager's --database-ready-timeout (30m by default): after it was deployed, after the switch from the load's resources to the measured ones, or — between steps — not ready again after a step (the message names that step and the one that never started); the message carries the database operator's own status (or, for spec.database.external, the missing Secret or key).",
		Action:  "`kubectl describe` the database object (`kubectl get {kinds} -l bench.oltp.io/run=RUN`) and its pods: Pending pods usually mean the storage class or the requested CPU and memory do not fit (too few nodes for the instances is caught before deployment: PlacementUnsatisfiable); a pod restarting after a step (its liveness probe failed under load, or it was OOM-killed) means the database cannot hold the load it was given at its resources — give it more, or start the search lower. For external, create the Secret with the key `uri`. Large databases may need a longer --database-ready-timeout.",
	},
	{
		Name: "LoadFailed", Kind: Run, Phase: "Loading",
		Meaning: "The loader Job RUN-load failed: a loader pod index exhausted its retries.",
		Action:  "`kubectl logs -l job-name=RUN-load --tail=50` names the error: the database unreachable or refusing connections, out of disk (storage.size), or a pod OOM-killed. Fix it and re-create the run; with teardown: Retain the loader resumes and skips loaded warehouses.",
	},
	{
		Name: "ConsistencyCheckFailed", Kind: Run, Phase: "Loading, or after the last step",
		Meaning: "The check Job RUN-check found a TPC-C consistency condition (3.3.2.1–12) violated after the load: the data is not what TPC-C requires. After the last step: the check Job RUN-check-final ended without a verdict (status.result.consistencyCheck.error), so the result is not published as compliant.",
		Action:  "`kubectl logs job/RUN-check` names the condition. A retained database loaded by another version or partly written by hand is the usual cause: drop it (teardown: Delete, or delete the database object) and load again. After the last step, the check's pod log says why it could not finish (the database unreachable, a timeout).",
	},
	{
		Name: "InconsistentAfterRun", Kind: Run, Phase: "Running (after the last step)",
		Meaning: "A finding: after the run's last step, the TPC-C consistency conditions no longer hold over the dataset (status.result.consistencyCheck.firstFailure names the condition and its first offender). The steps' figures rest on work the database or the driver did not keep consistent, so the run has no compliant result; the report is written.",
		Action:  "Read the check in the report; `kubectl logs job/RUN-check-final` has the full output while the run is kept. A driver or engine that loses part of a transaction raises tpmC without the steps noticing: report it with the run's report.json.",
	},
	{
		Name: "InvalidSLA", Kind: Run, Phase: "Running",
		Meaning: "spec.sla could not be turned into the step verdict's criteria. Admission rejects such SLAs, so this means an object stored under an older CRD.",
		Action:  "Fix spec.sla as the message says and create the run again (upgrade the CRD first: `helm upgrade` installs it).",
	},
	{
		Name: "SearchInconsistent", Kind: Run, Phase: "Running",
		Meaning: "The recorded steps do not replay under the run's search: status.steps was edited, or the steps were recorded by an operator version whose search chose differently.",
		Action:  "Create a new run; keep the report of this one. Upgrade the operator between runs, not during one, and do not edit status.",
	},
	{
		Name: "ReportTooLarge", Kind: Run, Phase: "Running",
		Meaning: "The search ended, but the report ConfigMap RUN-report cannot hold even the steps' records without their series, per-pod detail, histograms and summaries (over a thousand steps); the message gives its size and the budget. The steps' own ConfigMaps (RUN-step-N) keep everything.",
		Action:  "Read the steps from status.steps and their ConfigMaps (`kubectl get configmap -l bench.oltp.io/run=RUN`). Lower spec.search.maxSteps or split the sweep over several runs.",
	},
	{
		Name: "DatabaseConflict", Kind: Run, Phase: "Pending or Deploying",
		Meaning: "An object the run would create for its database (RUN-db of the engine's kind) already exists and is not this run's: no owner reference to it and no bench.oltp.io/owner-uid annotation with its UID. The run stopped before writing anything to it and will not tear it down. With spec.database.reuse: the object is not the database the named run kept.",
		Action:  "The message names the object and whose it is. Rename the run, or delete the other object if it is really abandoned (`kubectl get {kinds} RUN-db -o yaml` shows its owners). Never delete someone else's database to make room for a benchmark.",
	},
	{
		Name: "ObjectConflict", Kind: Run, Phase: "any",
		Meaning: "An object the run would write (its report, series or step ConfigMaps, a Job, its control Secret) exists and is not this run's. The run stopped having touched nothing of it (docs/integrity.md).",
		Action:  "The message names the object and its owner. Rename the run or remove the stale object (`kubectl get configmap,job,secret NAME -o yaml`), then create the run again.",
	},
	{
		Name: "ControlSecretConflict", Kind: Run, Phase: "Running",
		Meaning: "The Secret RUN-control exists and is not controlled by this run. Its token is what the client pods accept start, stop and snapshot requests with, so the operator uses only a token it made.",
		Action:  "Delete that Secret if it is stale, or rename the run; create the run again.",
	},
	{
		Name: "ControlSecretInvalid", Kind: Run, Phase: "Running",
		Meaning: "The run's own Secret RUN-control holds no usable token (edited or truncated): the client pods would refuse the operator.",
		Action:  "Do not edit RUN-control. Delete the run and create it again (a new token is made).",
	},
	{
		Name: "InfrastructureFailed", Kind: Run, Phase: "Running",
		Meaning: "A step was inconclusive search.retries + 1 times in a row (a client pod failed or was evicted, a pod never became ready, a snapshot could not be read or merged, the measured interval was cut short, the pods began measuring more than one series interval apart, data a criterion needs was missing). An inconclusive step is never evidence, so no capacity is published.",
		Action:  "`kubectl get br RUN -o yaml` lists each inconclusive step's cause in status.steps[].reasons; `kubectl get events` and the client pods' logs say more. Fix the cluster (node pressure, evictions, quotas, network policies), then run again; raise search.retries only for transient trouble.",
	},
	{
		Name: "ReuseMismatch", Kind: Run, Phase: "Pending or Loading",
		Meaning: "spec.database.reuse names a kept database that does not match this run: another spec.database (its hash differs), no finished load, another engine or schema version, or fewer warehouses loaded than spec.workload.warehouses; or its dataset check found no dataset. Nothing of it was changed.",
		Action:  "The message names both values. Make spec.database and spec.workload.warehouses equal to the kept run's, or drop spec.database.reuse to deploy and load afresh.",
	},
	{
		Name: "ReuseUnavailable", Kind: Run, Phase: "Pending",
		Meaning: "spec.database.reuse names a run that kept no database: it does not exist, failed before loading, or tore its database down (teardown Delete).",
		Action:  "Give the earlier run database.teardown: Retain (it is mutable) before it ends, or drop spec.database.reuse (docs/reuse.md).",
	},
	{
		Name: "SnapshotFailed", Kind: Run, Phase: "Loading",
		Meaning: "spec.database.snapshot: the snapshot of the freshly loaded data was not taken — the database operator's volume-snapshot request failed (its error is in the message: typically no VolumeSnapshotClass for the storage class's CSI driver, a driver without snapshots, or the VolumeSnapshot CRDs installed after the database operator started), was deleted, refused by the operator's webhook, or not completed within --database-ready-timeout. No step ran.",
		Action:  "`kubectl describe` the snapshot request (status.snapshot names it, RUN-snapshot) and `kubectl get volumesnapshot RUN-snapshot -o yaml` say what the CSI driver and the snapshot controller reported. Install the external-snapshotter's CRDs and controller (then restart the database operator), give spec.database.snapshot.volumeSnapshotClassName a class of the storage class's driver, or drop spec.database.snapshot (docs/reuse.md).",
	},
	{
		Name: "RestoreMismatch", Kind: Run, Phase: "Pending or Loading",
		Meaning: "spec.database.restore names a snapshot that does not match this run: taken of a database deployed with another spec.database (its hash differs), or holding another engine, schema version or warehouse count than spec.workload.warehouses; or the restored data's check found no dataset. Nothing was deployed (or the restored database is torn down with the run).",
		Action:  "The message names both values. Make spec.database and spec.workload.warehouses equal to the snapshotting run's, or drop spec.database.restore to load afresh.",
	},
	{
		Name: "RestoreUnavailable", Kind: Run, Phase: "Pending",
		Meaning: "spec.database.restore names a run that has no snapshot to restore: it does not exist (its snapshots are deleted with it), has no spec.database.snapshot, ended without taking it, or its VolumeSnapshot is gone or not ready to use.",
		Action:  "Restore from a run with spec.database.snapshot that got past its load (`kubectl get br NAME -o jsonpath='{.status.load.snapshot}'`), keep that run until the restoring runs have started, or drop spec.database.restore (docs/reuse.md).",
	},
	{
		Name: "AcknowledgedCommitLost", Kind: Run, Phase: "Running (fault step, or after the last step)",
		Meaning: "A finding, not a malfunction: after spec.faults, a New-Order the clients saw committed is missing from the database (the ledger check in status.steps[].fault.ledger), so the database lost acknowledged commits; or, after the run's last step, the database gained fewer orders than the New-Orders all steps acknowledged (status.result.consistencyCheck.ledger). The report is written.",
		Action:  "Read the fault step's ledger and the report (`kubectl tpcc report RUN`). Asynchronous replication or synchronousReplicas: 0 can lose commits on failover; synchronous replication with remote_apply or remote_write should not (docs/failover.md).",
	},
	{
		Name: "InconsistentAfterFault", Kind: Run, Phase: "Running (fault step)",
		Meaning: "A finding: after spec.faults, the TPC-C consistency conditions no longer hold (status.steps[].fault.consistency names the failed one). The report is written.",
		Action:  "Read the fault step in the report; `kubectl logs job/RUN-check-step-N` (N: the fault step) has the full output. It means the database's recovery left partial transactions visible.",
	},
	{
		Name: "RunNameTaken", Kind: SuiteRun, Phase: "Running",
		Meaning: "A BenchmarkRun named SUITE-DATABASE-REPEAT already existed and is not this suite's, so the suite did not create its run; the suite goes on with the next one.",
		Action:  "Delete or rename the other run before starting the suite, or give the suite another name.",
	},
	{
		Name: "RunDeleted", Kind: SuiteRun, Phase: "Running",
		Meaning: "One of the suite's runs was deleted before it ended; the suite records it as failed and goes on.",
		Action:  "Nothing to fix unless it was not deliberate: the suite's comparison leaves that repeat out.",
	},
	{
		Name: "NoResult", Kind: Suite, Phase: "Running",
		Meaning: "Every run of the suite ended and none produced a result; the message lists each run with its own reason.",
		Action:  "Look up each run's reason in the BenchmarkRun table (`kubectl tpcc status SUITE` shows them).",
	},
})

// All returns the catalog, runs first, in a stable order.
func All() []Reason { return append([]Reason(nil), catalog...) }

// Lookup finds a reason by name.
func Lookup(name string) (Reason, bool) {
	for _, r := range catalog {
		if r.Name == name {
			return r, true
		}
	}
	return Reason{}, false
}

// Names returns the names of the reasons of one kind, sorted.
func Names(kind Kind) []string {
	var out []string
	for _, r := range catalog {
		if r.Kind == kind {
			out = append(out, r.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Hint is what the kubectl plugin prints under a failure: what to do, for RUN (a run's or a
// suite's name); empty for an unknown reason.
func Hint(name, object string) string {
	r, ok := Lookup(name)
	if !ok {
		return ""
	}
	return strings.ReplaceAll(r.Action, "RUN", object)
}

// MarkdownTable renders the reasons of one kind as docs/troubleshooting.md shows them.
func MarkdownTable(kind Kind) string {
	var b strings.Builder
	b.WriteString("| reason | when | what it means | what to do |\n|---|---|---|---|\n")
	for _, r := range catalog {
		if r.Kind != kind {
			continue
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Name, r.Phase, cell(r.Meaning), cell(r.Action))
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// withEngines fills in the catalog what depends on the engines the operator knows (the engines'
// registry): {crds}, each database operator's CRDs; {versions}, each operator's supported version;
// {kinds}, the kinds of the objects runs deploy, as kubectl get takes them.
func withEngines(reasons []Reason) []Reason {
	var crds, versions, kinds []string
	for _, o := range registry.Default().Operators() {
		versions = append(versions, o.Operator.Name+" "+o.Operator.Version)
		groups := map[string][]string{}
		var order []string
		for _, k := range o.Kinds {
			if _, seen := groups[k.Group]; !seen {
				order = append(order, k.Group)
			}
			plural := strings.ToLower(k.Kind) + "s"
			groups[k.Group] = append(groups[k.Group], plural)
			kinds = append(kinds, strings.ToLower(k.Kind))
		}
		for _, g := range order {
			crds = append(crds, o.Operator.Name+" "+strings.Join(groups[g], "/")+"."+g)
		}
	}
	fill := strings.NewReplacer("{crds}", strings.Join(crds, ", "), "{versions}", strings.Join(versions, ", "), "{kinds}", strings.Join(kinds, ","))
	for i := range reasons {
		reasons[i].Meaning, reasons[i].Action = fill.Replace(reasons[i].Meaning), fill.Replace(reasons[i].Action)
	}
	return reasons
}
