// Package jobs builds the Jobs a run needs, as pure functions: the loader (an Indexed Job, one
// warehouse range per pod), the finish-and-check Job, and one Indexed Job of client pods per step.
// Pods run the tpcc client non-root under the restricted Pod Security profile; the database URL
// reaches them only as an environment variable from a Secret (or a credential-free string).
package jobs

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
	"github.com/tpcc-operator/tpcc-operator/internal/workload"
)

// Labels on every pod and Job, beside engines.Labels.
const (
	ComponentLabel = "app.kubernetes.io/component"
	StepLabel      = "bench.oltp.io/step"

	ComponentLoader = "loader"
	ComponentCheck  = "check"
	ComponentClient = "client"
)

// SnapshotPort is where a client pod serves its snapshot (GET /v1/snapshot, POST /v1/start, /v1/stop),
// to the operator only (control.go), and GET /healthz to anyone (its readiness probe).
const SnapshotPort = 8080

// Linger keeps a finished client pod serving its final snapshot until the operator collects it,
// so a restarted operator loses no step.
const Linger = 30 * time.Minute

// Config is what the manager decides beside the run: the client image and pull policy.
type Config struct {
	ClientImage     string
	ImagePullPolicy corev1.PullPolicy
}

// LoaderJobName, CheckJobName and StepJobName name a run's Jobs.
func LoaderJobName(run *benchv1.BenchmarkRun) string { return run.Name + "-load" }
func CheckJobName(run *benchv1.BenchmarkRun) string  { return run.Name + "-check" }
func StepJobName(run *benchv1.BenchmarkRun, index int32) string {
	return fmt.Sprintf("%s-step-%d", run.Name, index)
}

// LoaderJob loads warehouses 1..N, pod i its shard; a pod that fails is retried on its own
// (backoffLimitPerIndex) and resumes where it stopped, since the loader skips finished warehouses.
// Each pod serves its progress to the operator (serveLoadProgress). loadCPU is the database's CPU
// the load writes through, in millicores (engines.LoadCPU), which sizes the pods when the run
// does not (workload.LoaderPods).
func LoaderJob(run *benchv1.BenchmarkRun, conn engines.Connection, loadCPU int64, cfg Config) *batchv1.Job {
	pods := workload.LoaderPods(run, loadCPU)
	args := []string{"load", "--engine", conn.Engine,
		"--warehouses", itoa(run.Spec.Workload.Warehouses),
		"--shard", "$(JOB_COMPLETION_INDEX)", "--shards", itoa(pods),
		"--threads", strconv.Itoa(workload.LoaderThreads), "--tables", tables(run)}
	for _, name := range sortedKeys(conn.LoaderSettings) {
		args = append(args, "--cluster-setting", name+"="+conn.LoaderSettings[name])
	}
	job := newJob(run, LoaderJobName(run), ComponentLoader, conn, cfg, args)
	indexed := batchv1.IndexedCompletion
	job.Spec.CompletionMode = &indexed
	job.Spec.Completions = &pods
	job.Spec.Parallelism = &pods
	job.Spec.BackoffLimitPerIndex = ptr(int32(3))
	job.Spec.MaxFailedIndexes = ptr(int32(0))
	job.Spec.BackoffLimit = nil // with backoffLimitPerIndex, the Job-wide limit must be unset
	job.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
	}
	serveLoadProgress(run, &job.Spec.Template.Spec, &job.Spec.Template.Spec.Containers[0], true)
	return job
}

// TerminationMessagePath is where a check Job's container writes the dataset it found
// (`tpcc check --dataset-json`): the kubelet copies it into the pod's status, where the operator
// reads it without reading logs.
const TerminationMessagePath = "/dev/termination-log"

// DatasetCheckJob checks a reused database before a run measures it: the TPC-C consistency
// conditions 3.3.2.1–12 without the load-time-only 3.3.2.11 (earlier runs delivered orders), and
// the dataset's identity and growth, written as the container's termination message.
func DatasetCheckJob(run *benchv1.BenchmarkRun, conn engines.Connection, cfg Config) *batchv1.Job {
	job := newJob(run, CheckJobName(run), ComponentCheck, conn, cfg,
		[]string{"check", "--engine", conn.Engine, "--warehouses", itoa(run.Spec.Workload.Warehouses), "--threads", strconv.Itoa(workload.LoaderThreads),
			"--dataset-json", TerminationMessagePath})
	job.Spec.BackoffLimit = ptr(int32(2))
	return job
}

// CheckJob adds the indexes the bulk load deferred (an init container, serving the finish's
// progress: serveLoadProgress) and then checks the TPC-C consistency conditions 3.3.2.1–12 on the
// loaded data.
func CheckJob(run *benchv1.BenchmarkRun, conn engines.Connection, cfg Config) *batchv1.Job {
	warehouses := itoa(run.Spec.Workload.Warehouses)
	job := newJob(run, CheckJobName(run), ComponentCheck, conn, cfg,
		[]string{"check", "--engine", conn.Engine, "--warehouses", warehouses, "--load-time", "--threads", strconv.Itoa(workload.LoaderThreads),
			"--dataset-json", TerminationMessagePath})
	finish := job.Spec.Template.Spec.Containers[0].DeepCopy()
	finish.Name = FinishContainerName
	// --vacuum: the steps should not share the database with autovacuum's first pass over the
	// freshly loaded tables.
	// --threads bounds its connections (PeakConnections); --tables as the load's, which the finish
	// checks the existing tables against.
	finish.Args = []string{"load", "--engine", conn.Engine, "--warehouses", warehouses, "--finish", "--vacuum",
		"--threads", strconv.Itoa(workload.LoaderThreads), "--tables", tables(run)}
	serveLoadProgress(run, &job.Spec.Template.Spec, finish, false)
	job.Spec.Template.Spec.InitContainers = []corev1.Container{*finish}
	job.Spec.BackoffLimit = ptr(int32(2))
	return job
}

// StepJob runs one measured step of the given measured length (0: workload.duration): pods start
// paused (the operator releases them together once all are ready), ramp up, measure, and keep
// serving their final snapshot until collected — to the operator only: every request but the
// readiness probe's must present the run's control token (ControlSecret), mounted as a file.
func StepJob(run *benchv1.BenchmarkRun, index, active int32, measured time.Duration, conn engines.Connection, cfg Config) *batchv1.Job {
	pods := workload.ClientPods(run, active)
	wait := "spec"
	if run.Spec.Workload.Wait == benchv1.WaitNone {
		wait = "none"
	}
	duration, rampUp := workload.Durations(run)
	if measured > 0 {
		duration = measured
	}
	args := []string{"run", "--engine", conn.Engine,
		"--warehouses", itoa(run.Spec.Workload.Warehouses),
		"--active-warehouses", itoa(active),
		"--shard", "$(JOB_COMPLETION_INDEX)", "--shards", itoa(pods),
		"--duration", duration.String(), "--ramp-up", rampUp.String(),
		"--wait", wait,
		"--interval", workload.Interval(run).String(), "--telemetry-shard", "0",
		"--isolation", isolation.Level(conn.Isolation).Flag(),
		"--listen", fmt.Sprintf(":%d", SnapshotPort), "--paused", "--linger", Linger.String(),
		"--seed", strconv.FormatInt(StepSeed(run, index), 10)}
	if n := run.Spec.Workload.Clients.Connections; n > 0 {
		args = append(args, "--connections", itoa(n))
	}
	for _, name := range conn.ReadSettings {
		args = append(args, "--show-setting", name)
	}
	// Through a pooler (engines.PoolerEndpoint): the steps' clients only; loaders and checks
	// connect directly.
	if p := conn.Pooler; p != nil {
		args = append(args, "--pooler-endpoint", p.Endpoint, "--pooler-mode", p.Mode)
	}
	job := newJob(run, StepJobName(run, index), ComponentClient, conn, cfg, args)
	job.Labels[StepLabel] = itoa(index)
	job.Spec.Template.Labels[StepLabel] = itoa(index)
	indexed := batchv1.IndexedCompletion
	job.Spec.CompletionMode = &indexed
	job.Spec.Completions = &pods
	job.Spec.Parallelism = &pods
	job.Spec.BackoffLimit = ptr(int32(0)) // a crashed client makes the step non-compliant; never rerun half a step
	job.Spec.ActiveDeadlineSeconds = ptr(int64((duration + rampUp + Linger + 30*time.Minute).Seconds()))

	mountControlToken(run, &job.Spec.Template.Spec)
	container := &job.Spec.Template.Spec.Containers[0]
	container.Ports = []corev1.ContainerPort{{Name: "snapshot", ContainerPort: SnapshotPort}}
	// The kubelet cannot present the control token without it being written into the pod spec:
	// the probe reads the one endpoint that needs none and says nothing but "serving".
	container.ReadinessProbe = &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: snapshot.PathHealth, Port: intstr.FromString("snapshot")}},
		PeriodSeconds: 2,
	}
	container.Resources = run.Spec.Workload.Clients.Resources
	if len(container.Resources.Requests) == 0 && len(container.Resources.Limits) == 0 {
		container.Resources = clientResources(int(active) * 10 / int(pods))
	}
	return job
}

// StepSeed is the seed of step index's client input streams, passed to every pod of the step
// (--seed) and recorded with the step: derived from the run's UID and the step's index, so a
// re-created Job gets the same one, steps (a retry is a step of its own) get different ones, and
// two runs never share one. It is positive: status holds it as an int64, and 0 would ask the
// client for a random seed.
func StepSeed(run *benchv1.BenchmarkRun, index int32) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/step/%d", run.UID, index)
	if seed := int64(h.Sum64() >> 1); seed != 0 {
		return seed
	}
	return 1
}

// clientResources sizes a client pod from its terminals: goroutine terminals cost a few KiB, and
// most memory goes to connections and histograms.
func clientResources(terminals int) corev1.ResourceRequirements {
	memory := resource.NewQuantity(int64(128<<20+terminals*32<<10), resource.BinarySI)
	cpu := resource.NewMilliQuantity(int64(250+terminals/10), resource.DecimalSI)
	return corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: *cpu, corev1.ResourceMemory: *memory},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(memory.Value()*2, resource.BinarySI)},
	}
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func newJob(run *benchv1.BenchmarkRun, name, component string, conn engines.Connection, cfg Config, args []string) *batchv1.Job {
	labels := engines.Labels(run)
	labels[ComponentLabel] = component
	podLabels := map[string]string{}
	for k, v := range labels {
		podLabels[k] = v
	}
	env := []corev1.EnvVar{{Name: "TPCC_URL", Value: conn.URL}}
	if conn.URLFrom != nil {
		env = []corev1.EnvVar{{Name: "TPCC_URL", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: conn.URLFrom}}}
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: run.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					RestartPolicy:                corev1.RestartPolicyNever,
					AutomountServiceAccountToken: ptr(false),
					EnableServiceLinks:           ptr(false),
					SecurityContext:              podSecurityContext(),
					Volumes:                      conn.Volumes,
					Containers: []corev1.Container{{
						Name:            "tpcc",
						Image:           cfg.ClientImage,
						ImagePullPolicy: cfg.ImagePullPolicy,
						Args:            args,
						Env:             env,
						VolumeMounts:    conn.VolumeMounts,
						SecurityContext: containerSecurityContext(),
					}},
				},
			},
		},
	}
	place(&job.Spec.Template.Spec, run, name, component, conn.DatabasePods)
	return job
}

// tables is the loader's --tables value: logged, or unlogged for a PostgreSQL run asking for it.
func tables(run *benchv1.BenchmarkRun) string {
	if run.Spec.Database.Tables() == benchv1.TablesUnlogged {
		return "unlogged"
	}
	return "logged"
}

func itoa(v int32) string { return strconv.Itoa(int(v)) }

func ptr[T any](v T) *T { return &v }

// containerSecurityContext is every Job container's: no privilege escalation, a read-only root,
// no capabilities — with podSecurityContext, the restricted Pod Security profile.
func containerSecurityContext() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr(false),
		ReadOnlyRootFilesystem:   ptr(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// podSecurityContext is every Job pod's: non-root (the client image's user 65532), the runtime's
// default seccomp profile — the restricted Pod Security profile.
func podSecurityContext() *corev1.PodSecurityContext {
	nonRoot := int64(65532)
	return &corev1.PodSecurityContext{
		RunAsNonRoot:   ptr(true),
		RunAsUser:      &nonRoot,
		RunAsGroup:     &nonRoot,
		FSGroup:        &nonRoot,
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}
