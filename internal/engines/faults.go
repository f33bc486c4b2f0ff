package engines

import (
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// FaultTargets is implemented by the backends of deployed databases: which pod a fault deletes,
// how to prove the pod belongs to the run's database, and what the engine's operator reports of
// its roles afterwards.
type FaultTargets interface {
	// FaultPod names the pod the fault deletes, from the observed vendor objects (Observed).
	FaultPod(run *benchv1.BenchmarkRun, f benchv1.Fault, observed map[Ref]*unstructured.Unstructured) (string, error)
	// OwnerChain is the chain of controllers from a database pod up to the vendor object the
	// operator applied for the run: the pod's controller must be OwnerChain[0], whose controller
	// is OwnerChain[1], and so on; the last carries the run's labels.
	OwnerChain(run *benchv1.BenchmarkRun) []Ref
	// Roles reads the engine operator's report of who serves writes and how many instances are
	// ready, from the observed vendor objects.
	Roles(run *benchv1.BenchmarkRun, observed map[Ref]*unstructured.Unstructured) Roles
}

// Roles is what an engine's operator reports of its instances.
type Roles struct {
	// Primary is the pod that serves writes, and PrimarySince when it became so (zero when the
	// engine has no single writer or does not say).
	Primary      string
	PrimarySince time.Time
	// Ready and Instances count the database's instances (pods) ready and desired.
	Ready, Instances int32
}

// Replication is implemented by the backends of engines that replicate to standbys the primary
// reports (PostgreSQL): how many standbys the deployed database has and whether commits wait
// for some of them, so a step can tell a standby that left from one that never existed.
type Replication interface {
	// Standbys is the number of standbys the run's database is configured with, and whether
	// commits wait for synchronous ones.
	Standbys(run *benchv1.BenchmarkRun) (standbys int, synchronous bool)
}
