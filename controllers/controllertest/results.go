package controllertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
)

// WriterKubelet plays the Job controller and the kubelet for results writer Jobs: it lays the
// Job's volumes out as the kubelet mounts them (each ConfigMap's items at their paths, the
// Secret's key), runs the real writer (internal/results, what `tpcc results write` runs) against a
// real PostgreSQL, and records the pod's termination message and the Job's end as they would be.
type WriterKubelet struct {
	t         *testing.T
	namespace string
	// dir holds every Job's mounted files: made before the kubelet starts, so that the test's
	// removal of it runs after the kubelet has stopped (cleanups run last-registered first; a
	// TempDir first asked for by the running kubelet was removed while it still wrote there).
	dir string

	mu sync.Mutex
	// ran are the writer Jobs run, by name, with their UIDs (a Job created twice shows twice).
	ran map[string][]types.UID
	// written counts, per step index, the successful writes that carried the step; ends the
	// successful writes that carried the end.
	written map[int32]int
	ends    int
	failed  int
}

// StartWriterKubelet runs a WriterKubelet for namespace until the test ends.
func StartWriterKubelet(t *testing.T, namespace string) *WriterKubelet {
	k := &WriterKubelet{t: t, namespace: namespace, dir: t.TempDir(), ran: map[string][]types.UID{}, written: map[int32]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			k.runPending(ctx)
			time.Sleep(50 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return k
}

func (k *WriterKubelet) runPending(ctx context.Context) {
	list := &batchv1.JobList{}
	if err := K8s.List(ctx, list, client.InNamespace(k.namespace), client.MatchingLabels{jobs.ComponentLabel: jobs.ComponentResults}); err != nil {
		return
	}
	for i := range list.Items {
		job := &list.Items[i]
		if job.DeletionTimestamp != nil || kube.JobCondition(job, batchv1.JobComplete) != nil || kube.JobCondition(job, batchv1.JobFailed) != nil {
			continue
		}
		k.mu.Lock()
		seen := slices.Contains(k.ran[job.Name], job.UID)
		k.ran[job.Name] = append(k.ran[job.Name], job.UID)
		k.mu.Unlock()
		if seen {
			continue
		}
		k.run(ctx, job)
	}
}

// run runs one writer Job to its end.
func (k *WriterKubelet) run(ctx context.Context, job *batchv1.Job) {
	rep, rec, err := k.write(ctx, job)
	if err != nil {
		rep = outbox.WriterReport{Error: err.Error()}
	}
	body, _ := json.Marshal(rep)
	exit := int32(0)
	if err != nil {
		exit = 1
	}
	// Errors once the test is over (its context canceled) are not the operator's.
	report := func(what string, err error) {
		if ctx.Err() == nil {
			k.t.Errorf("%s: %v", what, err)
		}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: job.Namespace, Name: job.Name + "-w", Labels: map[string]string{batchv1.JobNameLabel: job.Name}},
		Spec: job.Spec.Template.Spec}
	if err := K8s.Create(ctx, pod); err != nil && !apierrors.IsAlreadyExists(err) {
		report("writer pod", err)
		return
	}
	now := metav1.Now()
	pod.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: "writer",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Message: string(body), FinishedAt: now}}}}}
	if exit != 0 {
		pod.Status.Phase = corev1.PodFailed
	}
	if err := K8s.Status().Update(ctx, pod); err != nil {
		report("writer pod status", err)
		return
	}
	k.mu.Lock()
	if err == nil && rec.Run != nil {
		for _, s := range rec.Run.Steps {
			k.written[s.Index]++
		}
		if rec.Run.End != nil {
			k.ends++
		}
	}
	if exit != 0 {
		k.failed++
	}
	k.mu.Unlock()
	// What the Job controller records of its one pod (not ct.FailJob/ct.SetJobProgress: this goroutine
	// must not end the test).
	for ctx.Err() == nil {
		current := &batchv1.Job{}
		if err := K8s.Get(ctx, client.ObjectKeyFromObject(job), current); err != nil {
			report("writer Job", err)
			return
		}
		now := metav1.Now()
		current.Status.StartTime, current.Status.Active = &now, 0
		end := []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete}
		current.Status.Succeeded, current.Status.CompletionTime = 1, &now
		if exit != 0 {
			end = []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed}
			current.Status.Succeeded, current.Status.Failed, current.Status.CompletionTime = 0, 1, nil
		}
		current.Status.Conditions = nil
		for _, c := range end {
			current.Status.Conditions = append(current.Status.Conditions, batchv1.JobCondition{Type: c, Status: corev1.ConditionTrue,
				Reason: "BackoffLimitExceeded", LastTransitionTime: now, LastProbeTime: now})
		}
		if exit == 0 {
			for i := range current.Status.Conditions {
				current.Status.Conditions[i].Reason = "CompletionsReached"
			}
		}
		err := K8s.Status().Update(ctx, current)
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			report("writer Job status", err)
			return
		}
	}
}

// write lays the Job's volumes out and runs the writer, as `tpcc results write` does.
func (k *WriterKubelet) write(ctx context.Context, job *batchv1.Job) (outbox.WriterReport, outbox.Record, error) {
	dir, err := os.MkdirTemp(k.dir, "job-")
	if err != nil {
		return outbox.WriterReport{}, outbox.Record{}, err
	}
	var uri string
	spec := job.Spec.Template.Spec
	for _, v := range spec.Volumes {
		switch {
		case v.Secret != nil:
			s := &corev1.Secret{}
			if err := K8s.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: v.Secret.SecretName}, s); err != nil {
				return outbox.WriterReport{}, outbox.Record{}, fmt.Errorf("mounting Secret %s: %w", v.Secret.SecretName, err)
			}
			uri = string(s.Data[v.Secret.Items[0].Key])
		case v.Projected != nil:
			for _, src := range v.Projected.Sources {
				cm := &corev1.ConfigMap{}
				if err := K8s.Get(ctx, client.ObjectKey{Namespace: job.Namespace, Name: src.ConfigMap.Name}, cm); apierrors.IsNotFound(err) && *src.ConfigMap.Optional {
					continue
				} else if err != nil {
					return outbox.WriterReport{}, outbox.Record{}, err
				}
				for _, item := range src.ConfigMap.Items {
					data, ok := []byte(cm.Data[item.Key]), true
					if _, inData := cm.Data[item.Key]; !inData {
						data, ok = cm.BinaryData[item.Key]
					}
					if !ok {
						continue
					}
					path := filepath.Join(dir, item.Path)
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						return outbox.WriterReport{}, outbox.Record{}, err
					}
					if err := os.WriteFile(path, data, 0o444); err != nil {
						return outbox.WriterReport{}, outbox.Record{}, err
					}
				}
			}
		}
	}
	args := spec.Containers[0].Args
	if !slices.Equal(args[:2], []string{"results", "write"}) || !slices.Contains(args, jobs.ResultsInputDir) {
		return outbox.WriterReport{}, outbox.Record{}, fmt.Errorf("unexpected writer args %v", args)
	}
	body, err := os.ReadFile(filepath.Join(dir, outbox.RecordFile))
	if err != nil {
		return outbox.WriterReport{}, outbox.Record{}, err
	}
	rec, err := outbox.Decode(body)
	if err != nil {
		return outbox.WriterReport{}, rec, err
	}
	conn, err := results.Connect(ctx, uri, 1)
	if err != nil {
		return outbox.WriterReport{}, rec, err
	}
	defer conn.Close(context.Background())
	w, err := results.Write(ctx, conn, rec, os.DirFS(dir))
	if err != nil {
		return outbox.WriterReport{}, rec, fmt.Errorf("%s", results.Redact(err.Error(), uri))
	}
	return outbox.WriterReport{Written: w.String(), Baseline: w.Baseline}, rec, nil
}

// ResultsSecret creates the Secret of a results database: key uri holds its URI.
func ResultsSecret(t *testing.T, namespace, name, uri string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, StringData: map[string]string{"uri": uri}}
	if err := K8s.Create(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

// WriterTally is what a WriterKubelet has run: the writer Jobs by name with their UIDs, and per
// step index the successful writes that carried the step; the writes that carried the end and
// those that failed.
type WriterTally struct {
	Ran     map[string][]types.UID
	Written map[int32]int
	Ends    int
	Failed  int
}

// Tally is a copy of what the kubelet has run so far.
func (k *WriterKubelet) Tally() WriterTally {
	k.mu.Lock()
	defer k.mu.Unlock()
	t := WriterTally{Ran: map[string][]types.UID{}, Written: map[int32]int{}, Ends: k.ends, Failed: k.failed}
	for name, ids := range k.ran {
		t.Ran[name] = append([]types.UID(nil), ids...)
	}
	for i, n := range k.written {
		t.Written[i] = n
	}
	return t
}

// Row scans one row of a query into into, failing the test when it cannot.
func Row(t *testing.T, conn *pgx.Conn, sql string, args []any, into ...any) {
	t.Helper()
	if err := conn.QueryRow(context.Background(), sql, args...).Scan(into...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
