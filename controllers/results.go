package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/jobs"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
)

// +kubebuilder:rbac:groups="",resources=configmaps,verbs=delete

// The results database (docs/results.md). The manager links no database driver, so it never
// opens a connection to it: for each write — a run's newly recorded steps, its end, a suite's
// end — it puts the record into a ConfigMap of the run or suite, <name>-results-<n>, and starts a
// Job of the client image, of the same name, that mounts that ConfigMap, the run's own step
// ConfigMaps and the results Secret (this pod alone sees the credentials) and runs `tpcc results
// write`. The rows have natural keys and are written with ON CONFLICT, so a record written twice
// changes nothing.
//
// What is written and what is under way is status (status.resultsDatabase), never memory: the
// writer to start is decided in the status write itself (optimistic locking), so a restarted
// manager finds the Job it had decided on and never starts a second for the same steps. A write
// that fails (the database is down, the Secret is wrong) is retried with backoff, doubling from
// Backoff to MaxBackoff; condition ResultsRecorded says what is pending and why; the run goes on
// and ends as it would have. When the database answers again, one Job writes the whole backlog.

// ResultsConfig is the operator-wide configuration of the results database.
type ResultsConfig struct {
	// Secret names the Secret (looked up in each resource's namespace) and key of the default
	// results database, for runs and suites whose spec.results names none; nil: no default.
	Secret *benchv1.SecretKeyRef
	// Backoff is the pause after a failed write; it doubles per failure up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// DeletionGrace is how long the deletion of a resource waits for its backlog to be written
	// (ResultsFinalizer); default 10 minutes.
	DeletionGrace time.Duration
}

// DefaultResultsConfig has no default database and backs off from 10 s to 5 min.
func DefaultResultsConfig() ResultsConfig {
	return ResultsConfig{Backoff: 10 * time.Second, MaxBackoff: 5 * time.Minute, DeletionGrace: DefaultResultsDeletionGrace}
}

// resultsRecorder writes a run's or a suite's rows through writer Jobs.
type resultsRecorder struct {
	client.Client
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	Config    ResultsConfig
	Jobs      jobs.Config
}

// recordable is what the recorder needs of a run or a suite.
type recordable struct {
	obj  client.Object
	kind string
	spec *benchv1.ResultsSpec
	// recording is the status as last read or written (nil before the first write).
	recording func() *benchv1.ResultsRecording
	labels    map[string]string
	// steps are the steps recorded so far (runs); ended whether the end is there to write.
	steps int32
	ended bool
	// update writes status: mutate gets the freshest recording (allocated when nil) and conditions.
	update func(ctx context.Context, mutate func(rec *benchv1.ResultsRecording, conditions *[]metav1.Condition)) error
	// build is the record of writer w, whose steps start at from, and the ConfigMaps it mounts
	// beside its own.
	build func(ctx context.Context, w benchv1.ResultsWriter, from int32) (outbox.Record, []outbox.Source, error)
	// written is called with a successful writer's report before the write is recorded (a
	// suite's regression verdict); nil: nothing.
	written func(ctx context.Context, rep outbox.WriterReport, w benchv1.ResultsWriter) error
}

// effectiveSecret is the results Secret of a spec: its own, the default, or none.
func (rr *resultsRecorder) effectiveSecret(spec *benchv1.ResultsSpec) *benchv1.SecretKeyRef {
	var ref *benchv1.SecretKeyRef
	switch {
	case spec != nil && spec.Disabled:
		return nil
	case spec != nil && spec.SecretRef != nil:
		ref = spec.SecretRef.DeepCopy()
	case rr.Config.Secret != nil:
		ref = rr.Config.Secret.DeepCopy()
	default:
		return nil
	}
	if ref.Key == "" {
		ref.Key = "uri"
	}
	return ref
}

func secretWords(ref benchv1.SecretKeyRef) string { return ref.Name + "/" + ref.Key }

// ResultsWriterName names the n-th writer Job of a run or suite, and its ConfigMap.
func ResultsWriterName(name string, n int32) string { return fmt.Sprintf("%s-results-%d", name, n) }

// reconcile moves the recording forward and returns when to look again (0: when something
// changes). Its errors never stop the resource's own reconciliation.
func (rr *resultsRecorder) reconcile(ctx context.Context, t *recordable) (time.Duration, error) {
	secret := rr.effectiveSecret(t.spec)
	if secret == nil {
		return 0, nil
	}
	words := secretWords(*secret)
	if rec := t.recording(); rec == nil || rec.Secret != words {
		// The first write, or another database: everything is written to it (its natural keys
		// keep rows it already has from being duplicated). A writer to the old one is dropped.
		if rec != nil && rec.Writer != nil {
			rr.deleteWriter(ctx, t, rec.Writer.Job)
		}
		if err := t.update(ctx, func(r *benchv1.ResultsRecording, _ *[]metav1.Condition) {
			if r.Secret != words {
				*r = benchv1.ResultsRecording{Secret: words, Writes: r.Writes}
			}
		}); err != nil {
			return 0, err
		}
	}
	if w := t.recording().Writer; w != nil {
		done, wait, err := rr.observeWriter(ctx, t, *w, *secret)
		if err != nil || !done {
			return wait, err
		}
	}
	return rr.startWriter(ctx, t, *secret)
}

// startWriter starts a writer Job when something is pending and no backoff holds it back.
func (rr *resultsRecorder) startWriter(ctx context.Context, t *recordable, secret benchv1.SecretKeyRef) (time.Duration, error) {
	rec := t.recording()
	pendingSteps, pendingEnd := t.steps > rec.StepsWritten, t.ended && !rec.EndWritten
	if !pendingSteps && !pendingEnd {
		return 0, t.update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if t.kind == outbox.KindSuite && !r.EndWritten {
				// A suite has one row, written at its end: nothing is in the database yet.
				kube.SetCondition(c, t.obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionUnknown, benchv1.ReasonResultsPending,
					"the suite is written to the results database (Secret "+r.Secret+") once it has ended and its runs' ends are there")
				return
			}
			kube.SetCondition(c, t.obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionTrue, benchv1.ReasonResultsWritten, writtenWords(t, r))
		})
	}
	if next := rec.NextAttempt; next != nil && time.Until(next.Time) > 0 {
		return time.Until(next.Time), nil
	}
	// The Secret must be there for the pod to start: its metadata only, the manager never reads
	// what it holds.
	s := &metav1.PartialObjectMetadata{}
	s.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := rr.APIReader.Get(ctx, client.ObjectKey{Namespace: t.obj.GetNamespace(), Name: secret.Name}, s); apierrors.IsNotFound(err) {
		msg := fmt.Sprintf("Secret %s not found in namespace %s; still to write once it is there: %s", secret.Name, t.obj.GetNamespace(), backlogWords(t, rec))
		return time.Minute, t.update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			kube.SetCondition(c, t.obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonResultsSecretAbsent, msg)
		})
	} else if err != nil {
		return 0, err
	}
	var decided *benchv1.ResultsWriter
	if err := t.update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
		if r.Writer == nil {
			r.Writes++
			r.Writer = &benchv1.ResultsWriter{Job: ResultsWriterName(t.obj.GetName(), r.Writes), Steps: t.steps, End: t.ended, StartTime: metav1.Now()}
		}
		decided = r.Writer.DeepCopy()
		if r.Failures == 0 {
			kube.SetCondition(c, t.obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonResultsWriting,
				fmt.Sprintf("writing %s to the results database (Job %s)", backlogWords(t, r), r.Writer.Job))
		}
	}); err != nil {
		return 0, err
	}
	return rr.ensureWriter(ctx, t, *decided, secret)
}

// ensureWriter creates the writer's ConfigMap and Job, once each. A name taken by an object that
// is not the resource's is left alone: the write moves on to the next name.
func (rr *resultsRecorder) ensureWriter(ctx context.Context, t *recordable, w benchv1.ResultsWriter, secret benchv1.SecretKeyRef) (time.Duration, error) {
	rec, sources, err := t.build(ctx, w, t.recording().StepsWritten)
	if err != nil {
		return 0, err
	}
	body, err := outbox.Encode(rec)
	if err != nil {
		return 0, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.Job, Namespace: t.obj.GetNamespace(), Labels: writerLabels(t)},
		Data: map[string]string{outbox.RecordKey: string(body)}}
	err = kube.CreateOwned(ctx, rr.Client, rr.APIReader, rr.Scheme, t.obj, cm)
	if err == nil {
		sources = append([]outbox.Source{{ConfigMap: w.Job, Items: []outbox.Item{{Key: outbox.RecordKey, Path: outbox.RecordFile}}}}, sources...)
		job := jobs.ResultsWriterJob(t.obj.GetNamespace(), w.Job, writerLabels(t), secret, sources, rr.Jobs)
		err = kube.CreateOwned(ctx, rr.Client, rr.APIReader, rr.Scheme, t.obj, job)
	}
	if conflict := kube.AsConflict(err); conflict != nil {
		rr.event(t, corev1.EventTypeWarning, benchv1.ReasonObjectConflict, "%s", conflict.Error())
		return time.Second, t.update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if r.Writer != nil && r.Writer.Job == w.Job {
				r.Writer = nil // the next write takes the next name
			}
			kube.SetCondition(c, t.obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonObjectConflict, conflict.Error())
		})
	}
	return 0, err
}

// observeWriter looks at the writer Job under way: done when it ended (the write recorded as
// written or failed, the Job and its ConfigMap deleted); otherwise when to look again.
func (rr *resultsRecorder) observeWriter(ctx context.Context, t *recordable, w benchv1.ResultsWriter, secret benchv1.SecretKeyRef) (bool, time.Duration, error) {
	job := &batchv1.Job{}
	err := rr.APIReader.Get(ctx, client.ObjectKey{Namespace: t.obj.GetNamespace(), Name: w.Job}, job)
	if apierrors.IsNotFound(err) {
		// Decided but not created yet: the manager stopped in between. Create it now.
		wait, err := rr.ensureWriter(ctx, t, w, secret)
		return false, max(wait, 30*time.Second), err
	}
	if err != nil {
		return false, 0, err
	}
	if !kube.OwnedBy(job, t.obj) {
		return false, 0, t.update(ctx, func(r *benchv1.ResultsRecording, _ *[]metav1.Condition) {
			if r.Writer != nil && r.Writer.Job == w.Job {
				r.Writer = nil
			}
		})
	}
	switch {
	case kube.JobCondition(job, batchv1.JobComplete) != nil:
		rep := rr.writerReport(ctx, job)
		if t.written != nil {
			if err := t.written(ctx, rep, w); err != nil {
				return false, 0, err
			}
		}
		recovered := t.recording().Failures
		if err := t.update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if r.Writer == nil || r.Writer.Job != w.Job {
				return
			}
			r.StepsWritten = max(r.StepsWritten, w.Steps)
			r.EndWritten = r.EndWritten || w.End
			r.Writer, r.Failures, r.LastError, r.NextAttempt = nil, 0, "", nil
			r.LastWritten = &metav1.Time{Time: time.Now()}
			if t.steps <= r.StepsWritten && (!t.ended || r.EndWritten) {
				kube.SetCondition(c, t.obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionTrue, benchv1.ReasonResultsWritten, writtenWords(t, r))
			}
		}); err != nil {
			return false, 0, err
		}
		if recovered > 0 {
			rr.event(t, corev1.EventTypeNormal, benchv1.ConditionResultsRecorded, "the results database answered again after %d failed %s: %s",
				recovered, pluralOf(int(recovered), "write", "writes"), strings.TrimSpace(rep.Written))
		}
		rr.deleteWriter(ctx, t, w.Job)
		return true, 0, nil
	case kube.JobCondition(job, batchv1.JobFailed) != nil:
		rep := rr.writerReport(ctx, job)
		msg := rep.Error
		if msg == "" {
			msg = "the writer Job failed: " + kube.JobCondition(job, batchv1.JobFailed).Message
		}
		msg = truncateWords(msg, 1024)
		var next time.Time
		var failures int32
		if err := t.update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if r.Writer == nil || r.Writer.Job != w.Job {
				return
			}
			r.Writer = nil
			r.Failures++
			failures = r.Failures
			r.LastError = msg
			next = time.Now().Add(rr.backoff(r.Failures))
			r.NextAttempt = &metav1.Time{Time: next}
			kube.SetCondition(c, t.obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonResultsUnavailable,
				fmt.Sprintf("write %d failed: %s; still to write: %s; the next attempt at %s (the benchmark goes on)",
					r.Failures, msg, backlogWords(t, r), next.UTC().Format(time.RFC3339)))
		}); err != nil {
			return false, 0, err
		}
		if failures == 1 || failures%10 == 0 {
			rr.event(t, corev1.EventTypeWarning, "ResultsNotRecorded", "write %d to the results database failed: %s; retrying with backoff", failures, msg)
		}
		rr.deleteWriter(ctx, t, w.Job)
		return false, max(time.Until(next), 0), nil
	}
	return false, 30 * time.Second, nil // its end brings the resource back (owned Jobs are watched)
}

// backoff is the pause after the n-th failed write in a row.
func (rr *resultsRecorder) backoff(n int32) time.Duration {
	base, top := rr.Config.Backoff, rr.Config.MaxBackoff
	if base <= 0 {
		base = DefaultResultsConfig().Backoff
	}
	if top <= 0 {
		top = DefaultResultsConfig().MaxBackoff
	}
	d := base
	for i := int32(1); i < n && d < top; i++ {
		d *= 2
	}
	return min(d, top)
}

// writerReport is the writer's termination message; a message that is not its JSON (the log tail
// the kubelet falls back to) is the error.
func (rr *resultsRecorder) writerReport(ctx context.Context, job *batchv1.Job) outbox.WriterReport {
	pods := &corev1.PodList{}
	// Uncached: the manager may list pods, not watch them.
	if err := rr.APIReader.List(ctx, pods, client.InNamespace(job.Namespace), client.MatchingLabels{batchv1.JobNameLabel: job.Name}); err != nil {
		return outbox.WriterReport{Error: "the writer's pod could not be read: " + err.Error()}
	}
	var latest *corev1.ContainerStateTerminated
	for _, p := range pods.Items {
		for _, s := range p.Status.ContainerStatuses {
			if term := s.State.Terminated; term != nil && (latest == nil || term.FinishedAt.After(latest.FinishedAt.Time)) {
				latest = term
			}
		}
	}
	if latest == nil {
		return outbox.WriterReport{}
	}
	var rep outbox.WriterReport
	if err := json.Unmarshal([]byte(latest.Message), &rep); err != nil {
		return outbox.WriterReport{Error: strings.TrimSpace(latest.Message)}
	}
	return rep
}

// deleteWriter deletes a writer Job (with its pod) and its ConfigMap, when they are the resource's.
func (rr *resultsRecorder) deleteWriter(ctx context.Context, t *recordable, name string) {
	for _, obj := range []client.Object{&batchv1.Job{}, &corev1.ConfigMap{}} {
		err := rr.APIReader.Get(ctx, client.ObjectKey{Namespace: t.obj.GetNamespace(), Name: name}, obj)
		if err == nil {
			_, err = kube.DeleteOwned(ctx, rr.Client, t.obj, obj, client.PropagationPolicy(metav1.DeletePropagationBackground))
		}
		if err != nil && !apierrors.IsNotFound(err) {
			ctrl.LoggerFrom(ctx).Error(err, "deleting a results writer's object", "name", name)
		}
	}
}

func (rr *resultsRecorder) event(t *recordable, eventType, reason, format string, args ...any) {
	if rr.Recorder != nil {
		rr.Recorder.Eventf(t.obj, nil, eventType, reason, "RecordResults", format, args...)
	}
}

func writerLabels(t *recordable) map[string]string {
	out := map[string]string{}
	for k, v := range t.labels {
		out[k] = v
	}
	return out
}

// backlogWords names what is not written yet: "steps 3..5 and the run's end".
func backlogWords(t *recordable, r *benchv1.ResultsRecording) string {
	var parts []string
	switch n := t.steps - r.StepsWritten; {
	case n == 1:
		parts = append(parts, fmt.Sprintf("step %d", r.StepsWritten))
	case n > 1:
		parts = append(parts, fmt.Sprintf("steps %d..%d", r.StepsWritten, t.steps-1))
	}
	if t.ended && !r.EndWritten {
		parts = append(parts, "the "+strings.ToLower(strings.TrimPrefix(t.kind, "Benchmark"))+"'s end")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// writtenWords says what the results database holds.
func writtenWords(t *recordable, r *benchv1.ResultsRecording) string {
	what := fmt.Sprintf("%d %s", r.StepsWritten, pluralOf(int(r.StepsWritten), "step", "steps"))
	if t.kind == outbox.KindSuite {
		what = "the suite"
	}
	if r.EndWritten {
		what += " and the end"
	}
	return fmt.Sprintf("%s in the results database (Secret %s)", what, r.Secret)
}

func pluralOf(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func truncateWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// endOf is how a resource ended, from its Failed or Complete condition: the key of its result.
func endOf(phase benchv1.Phase, conditions []metav1.Condition) *outbox.End {
	if phase != benchv1.PhaseSucceeded && phase != benchv1.PhaseFailed {
		return nil
	}
	conditionType := benchv1.ConditionComplete
	if phase == benchv1.PhaseFailed {
		conditionType = benchv1.ConditionFailed
	}
	end := &outbox.End{Phase: phase, Time: time.Now().UTC()}
	if c := meta.FindStatusCondition(conditions, conditionType); c != nil {
		end.Reason, end.Message, end.Generation, end.Time = c.Reason, c.Message, c.ObservedGeneration, c.LastTransitionTime.UTC()
	}
	return end
}
