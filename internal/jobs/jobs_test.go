package jobs

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

func testRun(warehouses int32) *benchv1.BenchmarkRun {
	return &benchv1.BenchmarkRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "r"},
		Spec: benchv1.BenchmarkRunSpec{
			Database: benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL},
			Workload: benchv1.WorkloadSpec{Warehouses: warehouses,
				Duration: &metav1.Duration{Duration: 5 * time.Minute}, RampUp: &metav1.Duration{Duration: time.Minute}},
		},
	}
}

var secretConn = engines.Connection{Engine: "postgres", URLFrom: &corev1.SecretKeySelector{
	LocalObjectReference: corev1.LocalObjectReference{Name: "r-db-app"}, Key: "uri"}}

func arg(t *testing.T, args []string, flag string) string {
	t.Helper()
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("%s missing from %v", flag, args)
	}
	return args[i+1]
}

func TestLoaderJob(t *testing.T) {
	job := LoaderJob(testRun(120), secretConn, 0, Config{ClientImage: "tpcc:dev"})
	if job.Name != "r-load" || job.Namespace != "bench" {
		t.Errorf("job %s/%s", job.Namespace, job.Name)
	}
	if *job.Spec.CompletionMode != batchv1.IndexedCompletion || *job.Spec.Completions != 3 || *job.Spec.Parallelism != 3 {
		t.Errorf("indexed %v completions %d parallelism %d, want Indexed 3 3", *job.Spec.CompletionMode, *job.Spec.Completions, *job.Spec.Parallelism)
	}
	if job.Spec.BackoffLimitPerIndex == nil || job.Spec.BackoffLimit != nil {
		t.Error("a failed loader pod must be retried on its own index")
	}
	c := job.Spec.Template.Spec.Containers[0]
	if arg(t, c.Args, "--shard") != "$(JOB_COMPLETION_INDEX)" || arg(t, c.Args, "--shards") != "3" || arg(t, c.Args, "--warehouses") != "120" {
		t.Errorf("args = %v", c.Args)
	}
	assertURLFromSecret(t, c)
	// A database whose load writes through 128 cores: a stream a core, 4 a pod.
	big := LoaderJob(testRun(18000), secretConn, 128000, Config{})
	if *big.Spec.Completions != 32 || *big.Spec.Parallelism != 32 || arg(t, big.Spec.Template.Spec.Containers[0].Args, "--shards") != "32" {
		t.Errorf("128 cores: completions %d, args %v; want 32 pods", *big.Spec.Completions, big.Spec.Template.Spec.Containers[0].Args)
	}
}

// The loader and the finish create and check the tables with the run's persistence.
func TestLoaderTables(t *testing.T) {
	cases := []struct {
		name   string
		tweak  func(*benchv1.BenchmarkRun)
		tables string
	}{
		{"omitted postgres block", func(*benchv1.BenchmarkRun) {}, "logged"},
		{"postgres unlogged", func(r *benchv1.BenchmarkRun) {
			r.Spec.Database.Postgres = &benchv1.PostgresSpec{Tables: benchv1.TablesUnlogged}
		}, "unlogged"},
		{"external postgres unlogged", func(r *benchv1.BenchmarkRun) {
			r.Spec.Database.External = &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "db"}, Tables: benchv1.TablesUnlogged}
		}, "unlogged"},
		{"cockroach", func(r *benchv1.BenchmarkRun) { r.Spec.Database.Engine = benchv1.EngineCockroachDB }, "logged"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run := testRun(10)
			tc.tweak(run)
			if got := arg(t, LoaderJob(run, secretConn, 0, Config{}).Spec.Template.Spec.Containers[0].Args, "--tables"); got != tc.tables {
				t.Errorf("loader --tables %s, want %s", got, tc.tables)
			}
			finish := CheckJob(run, secretConn, Config{}).Spec.Template.Spec.InitContainers[0].Args
			if got := arg(t, finish, "--tables"); got != tc.tables {
				t.Errorf("finish --tables %s, want %s", got, tc.tables)
			}
			if got := arg(t, finish, "--threads"); got != "4" {
				t.Errorf("finish --threads %s, want %d (workload.LoaderThreads)", got, workload.LoaderThreads)
			}
		})
	}
}

func TestCheckJobFinishesTheLoadFirst(t *testing.T) {
	job := CheckJob(testRun(7), secretConn, Config{ClientImage: "tpcc:dev"})
	spec := job.Spec.Template.Spec
	if len(spec.InitContainers) != 1 || !slices.Contains(spec.InitContainers[0].Args, "--finish") || !slices.Contains(spec.InitContainers[0].Args, "--vacuum") {
		t.Fatalf("init containers = %+v", spec.InitContainers)
	}
	if spec.Containers[0].Args[0] != "check" || !slices.Contains(spec.Containers[0].Args, "--load-time") {
		t.Errorf("args = %v", spec.Containers[0].Args)
	}
	assertURLFromSecret(t, spec.InitContainers[0])
	assertURLFromSecret(t, spec.Containers[0])
}

func TestStepJob(t *testing.T) {
	run := testRun(2000)
	run.Spec.Workload.Wait = benchv1.WaitNone
	job := StepJob(run, 4, 1200, 0, secretConn, Config{ClientImage: "tpcc:dev", ImagePullPolicy: corev1.PullIfNotPresent})
	if job.Name != "r-step-4" || job.Labels[StepLabel] != "4" || job.Spec.Template.Labels[StepLabel] != "4" {
		t.Errorf("name %s labels %v", job.Name, job.Labels)
	}
	if *job.Spec.Completions != 3 || *job.Spec.BackoffLimit != 0 {
		t.Errorf("completions %d backoff %d", *job.Spec.Completions, *job.Spec.BackoffLimit)
	}
	c := job.Spec.Template.Spec.Containers[0]
	for flag, want := range map[string]string{
		"--active-warehouses": "1200", "--warehouses": "2000", "--shards": "3", "--wait": "none",
		"--duration": "5m0s", "--ramp-up": "1m0s", "--listen": ":8080",
		"--interval": "10s", "--telemetry-shard": "0", // the default interval; pod 0 samples the database
	} {
		if got := arg(t, c.Args, flag); got != want {
			t.Errorf("%s = %q, want %q", flag, got, want)
		}
	}
	if !slices.Contains(c.Args, "--paused") {
		t.Error("client pods must start paused")
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("readiness probe = %+v", c.ReadinessProbe)
	}
	if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().Cmp(*c.Resources.Requests.Memory()) <= 0 {
		t.Errorf("resources = %+v", c.Resources)
	}
	assertURLFromSecret(t, c)
}

// Every pod of a step runs with the step's seed: the same for the same run and step (a re-created
// Job replays it), another for another step or run, always positive.
func TestStepJobSeed(t *testing.T) {
	run, other := testRun(10), testRun(10)
	run.UID, other.UID = "0b5e3c1a-run-one", "7d2f9e4b-run-two"
	seedOf := func(run *benchv1.BenchmarkRun, index int32) string {
		return arg(t, StepJob(run, index, 10, 0, secretConn, Config{}).Spec.Template.Spec.Containers[0].Args, "--seed")
	}
	seeds := map[string]bool{}
	for _, r := range []*benchv1.BenchmarkRun{run, other} {
		for index := range int32(3) {
			got := seedOf(r, index)
			if got != seedOf(r, index) || got != strconv.FormatInt(StepSeed(r, index), 10) {
				t.Errorf("run %s step %d: --seed %s, then %s; StepSeed %d", r.UID, index, got, seedOf(r, index), StepSeed(r, index))
			}
			if StepSeed(r, index) <= 0 {
				t.Errorf("run %s step %d: seed %d, want a positive one", r.UID, index, StepSeed(r, index))
			}
			seeds[got] = true
		}
	}
	if len(seeds) != 6 {
		t.Errorf("%d distinct seeds over 2 runs of 3 steps, want 6: %v", len(seeds), seeds)
	}
}

// The pool is the client's own default (snapshot.Connections) unless the spec sets one.
func TestStepJobPassesTheSpecsPool(t *testing.T) {
	run := testRun(10)
	if args := StepJob(run, 0, 10, 0, secretConn, Config{}).Spec.Template.Spec.Containers[0].Args; slices.Contains(args, "--connections") {
		t.Errorf("args %v: --connections without spec.workload.clients.connections", args)
	}
	run.Spec.Workload.Clients.Connections = 40
	if got := arg(t, StepJob(run, 0, 10, 0, secretConn, Config{}).Spec.Template.Spec.Containers[0].Args, "--connections"); got != "40" {
		t.Errorf("--connections = %q, want 40", got)
	}
}

// Through a pooler only the steps' clients connect to it; the loader and the checks connect
// directly.
func TestStepJobThroughAPooler(t *testing.T) {
	run := testRun(10)
	conn := secretConn
	conn.Pooler = &engines.PoolerEndpoint{Endpoint: "r-db-pooler-rw.ns:5432", Mode: "transaction"}
	args := StepJob(run, 0, 10, 0, conn, Config{}).Spec.Template.Spec.Containers[0].Args
	if arg(t, args, "--pooler-endpoint") != "r-db-pooler-rw.ns:5432" || arg(t, args, "--pooler-mode") != "transaction" {
		t.Errorf("step args %v: want the pooler's endpoint and mode", args)
	}
	for _, job := range []*batchv1.Job{LoaderJob(run, conn, 0, Config{}), FinalCheckJob(run, conn, Config{})} {
		if args := job.Spec.Template.Spec.Containers[0].Args; slices.Contains(args, "--pooler-endpoint") {
			t.Errorf("%s args %v: the loaders and checks connect directly", job.Name, args)
		}
	}
	if args := StepJob(run, 0, 10, 0, secretConn, Config{}).Spec.Template.Spec.Containers[0].Args; slices.Contains(args, "--pooler-endpoint") {
		t.Errorf("args %v without a pooler", args)
	}
}

func TestStepJobUsesTheRunsClientResources(t *testing.T) {
	run := testRun(10)
	run.Spec.Workload.Clients.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: *resourceCPU("3")}}
	c := StepJob(run, 0, 10, 0, secretConn, Config{}).Spec.Template.Spec.Containers[0]
	if c.Resources.Requests.Cpu().String() != "3" || !c.Resources.Requests.Memory().IsZero() {
		t.Errorf("resources = %+v", c.Resources)
	}
}

func TestPlainURLAndCertificates(t *testing.T) {
	conn := engines.Connection{Engine: "cockroach", URL: "postgres://root@h:26257/defaultdb?sslmode=verify-full",
		Volumes:      []corev1.Volume{{Name: "certs"}},
		VolumeMounts: []corev1.VolumeMount{{Name: "certs", MountPath: "/certs", ReadOnly: true}}}
	spec := StepJob(testRun(1), 0, 1, 0, conn, Config{}).Spec.Template.Spec
	c := spec.Containers[0]
	if c.Env[0].Value != conn.URL || c.Env[0].ValueFrom != nil || len(spec.Volumes) != 2 || len(c.VolumeMounts) != 2 || spec.Volumes[0].Name != "certs" {
		t.Errorf("env %+v volumes %+v mounts %+v", c.Env, spec.Volumes, c.VolumeMounts)
	}
	if arg(t, c.Args, "--engine") != "cockroach" {
		t.Errorf("args = %v", c.Args)
	}
	if len(conn.Volumes) != 1 || len(conn.VolumeMounts) != 1 {
		t.Errorf("the connection's own volumes changed: %+v %+v", conn.Volumes, conn.VolumeMounts)
	}
}

// The URL never appears in arguments: tpcc reads TPCC_URL from the environment, filled from the Secret.
func assertURLFromSecret(t *testing.T, c corev1.Container) {
	t.Helper()
	if len(c.Env) != 1 || c.Env[0].Name != "TPCC_URL" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.SecretKeyRef.Name != "r-db-app" {
		t.Errorf("%s env = %+v, want TPCC_URL from Secret r-db-app", c.Name, c.Env)
	}
	for _, a := range c.Args {
		if strings.Contains(a, "postgres://") || strings.Contains(a, "TPCC_URL") {
			t.Errorf("%s passes the URL in its arguments: %v", c.Name, c.Args)
		}
	}
}
