package resultsdb

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

// Config is the operator-wide configuration of the results database.
type Config struct {
	// Secret names the Secret (looked up in each resource's namespace) and key of the default
	// results database, for runs and suites whose spec.results names none; nil: no default.
	Secret *benchv1.SecretKeyRef
	// Backoff is the pause after a failed write; it doubles per failure up to MaxBackoff.
	Backoff, MaxBackoff time.Duration
	// DeletionGrace is how long the deletion of a resource waits for its backlog to be written
	// (Finalizer); default 10 minutes.
	DeletionGrace time.Duration
}

// DefaultConfig has no default database and backs off from 10 s to 5 min.
func DefaultConfig() Config {
	return Config{Backoff: 10 * time.Second, MaxBackoff: 5 * time.Minute, DeletionGrace: DefaultDeletionGrace}
}

// Recorder writes a run's or a suite's rows through writer Jobs.
type Recorder struct {
	client.Client
	APIReader client.Reader
	Scheme    *runtime.Scheme
	Recorder  events.EventRecorder
	Config    Config
	Jobs      jobs.Config
}

// Recordable is what the recorder needs of a run or a suite.
type Recordable struct {
	Obj  client.Object
	Kind string
	Spec *benchv1.ResultsSpec
	// Recording is the status as last read or written (nil before the first write).
	Recording func() *benchv1.ResultsRecording
	Labels    map[string]string
	// Steps are the steps recorded so far (runs); Ended whether the end is there to write.
	Steps int32
	Ended bool
	// Update writes status: mutate gets the freshest recording (allocated when nil) and conditions.
	Update func(ctx context.Context, mutate func(rec *benchv1.ResultsRecording, conditions *[]metav1.Condition)) error
	// Build is the record of writer w, whose steps start at from, and the ConfigMaps it mounts
	// beside its own.
	Build func(ctx context.Context, w benchv1.ResultsWriter, from int32) (outbox.Record, []outbox.Source, error)
	// Written is called with a successful writer's report before the write is recorded (a
	// suite's regression verdict); nil: nothing.
	Written func(ctx context.Context, rep outbox.WriterReport, w benchv1.ResultsWriter) error
}

// EffectiveSecret is the results Secret of a spec: its own, the default, or none.
func (rr *Recorder) EffectiveSecret(spec *benchv1.ResultsSpec) *benchv1.SecretKeyRef {
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

// WriterName names the n-th writer Job of a run or suite, and its ConfigMap.
func WriterName(name string, n int32) string { return fmt.Sprintf("%s-results-%d", name, n) }

// Reconcile moves the recording forward and returns when to look again (0: when something
// changes). Its errors never stop the resource's own reconciliation.
func (rr *Recorder) Reconcile(ctx context.Context, t *Recordable) (time.Duration, error) {
	secret := rr.EffectiveSecret(t.Spec)
	if secret == nil {
		return 0, nil
	}
	words := secretWords(*secret)
	if rec := t.Recording(); rec == nil || rec.Secret != words {
		// The first write, or another database: everything is written to it (its natural keys
		// keep rows it already has from being duplicated). A writer to the old one is dropped.
		if rec != nil && rec.Writer != nil {
			rr.deleteWriter(ctx, t, rec.Writer.Job)
		}
		if err := t.Update(ctx, func(r *benchv1.ResultsRecording, _ *[]metav1.Condition) {
			if r.Secret != words {
				*r = benchv1.ResultsRecording{Secret: words, Writes: r.Writes}
			}
		}); err != nil {
			return 0, err
		}
	}
	if w := t.Recording().Writer; w != nil {
		done, wait, err := rr.observeWriter(ctx, t, *w, *secret)
		if err != nil || !done {
			return wait, err
		}
	}
	return rr.startWriter(ctx, t, *secret)
}

// startWriter starts a writer Job when something is pending and no backoff holds it back.
func (rr *Recorder) startWriter(ctx context.Context, t *Recordable, secret benchv1.SecretKeyRef) (time.Duration, error) {
	rec := t.Recording()
	pendingSteps, pendingEnd := t.Steps > rec.StepsWritten, t.Ended && !rec.EndWritten
	if !pendingSteps && !pendingEnd {
		return 0, t.Update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if t.Kind == outbox.KindSuite && !r.EndWritten {
				// A suite has one row, written at its end: nothing is in the database yet.
				kube.SetCondition(c, t.Obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionUnknown, benchv1.ReasonResultsPending,
					"the suite is written to the results database (Secret "+r.Secret+") once it has ended and its runs' ends are there")
				return
			}
			kube.SetCondition(c, t.Obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionTrue, benchv1.ReasonResultsWritten, writtenWords(t, r))
		})
	}
	if next := rec.NextAttempt; next != nil && time.Until(next.Time) > 0 {
		return time.Until(next.Time), nil
	}
	// The Secret must be there for the pod to start: its metadata only, the manager never reads
	// what it holds.
	s := &metav1.PartialObjectMetadata{}
	s.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := rr.APIReader.Get(ctx, client.ObjectKey{Namespace: t.Obj.GetNamespace(), Name: secret.Name}, s); apierrors.IsNotFound(err) {
		msg := fmt.Sprintf("Secret %s not found in namespace %s; still to write once it is there: %s", secret.Name, t.Obj.GetNamespace(), backlogWords(t, rec))
		return time.Minute, t.Update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			kube.SetCondition(c, t.Obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonResultsSecretAbsent, msg)
		})
	} else if err != nil {
		return 0, err
	}
	var decided *benchv1.ResultsWriter
	if err := t.Update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
		if r.Writer == nil {
			r.Writes++
			r.Writer = &benchv1.ResultsWriter{Job: WriterName(t.Obj.GetName(), r.Writes), Steps: t.Steps, End: t.Ended, StartTime: metav1.Now()}
		}
		decided = r.Writer.DeepCopy()
		if r.Failures == 0 {
			kube.SetCondition(c, t.Obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonResultsWriting,
				fmt.Sprintf("writing %s to the results database (Job %s)", backlogWords(t, r), r.Writer.Job))
		}
	}); err != nil {
		return 0, err
	}
	return rr.ensureWriter(ctx, t, *decided, secret)
}

// ensureWriter creates the writer's ConfigMap and Job, once each. A name taken by an object that
// is not the resource's is left alone: the write moves on to the next name.
func (rr *Recorder) ensureWriter(ctx context.Context, t *Recordable, w benchv1.ResultsWriter, secret benchv1.SecretKeyRef) (time.Duration, error) {
	rec, sources, err := t.Build(ctx, w, t.Recording().StepsWritten)
	if err != nil {
		return 0, err
	}
	body, err := outbox.Encode(rec)
	if err != nil {
		return 0, err
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: w.Job, Namespace: t.Obj.GetNamespace(), Labels: writerLabels(t)},
		Data: map[string]string{outbox.RecordKey: string(body)}}
	err = kube.CreateOwned(ctx, rr.Client, rr.APIReader, rr.Scheme, t.Obj, cm)
	if err == nil {
		sources = append([]outbox.Source{{ConfigMap: w.Job, Items: []outbox.Item{{Key: outbox.RecordKey, Path: outbox.RecordFile}}}}, sources...)
		job := jobs.ResultsWriterJob(t.Obj.GetNamespace(), w.Job, writerLabels(t), secret, sources, rr.Jobs)
		err = kube.CreateOwned(ctx, rr.Client, rr.APIReader, rr.Scheme, t.Obj, job)
	}
	if conflict := kube.AsConflict(err); conflict != nil {
		rr.event(t, corev1.EventTypeWarning, benchv1.ReasonObjectConflict, "%s", conflict.Error())
		return time.Second, t.Update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if r.Writer != nil && r.Writer.Job == w.Job {
				r.Writer = nil // the next write takes the next name
			}
			kube.SetCondition(c, t.Obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonObjectConflict, conflict.Error())
		})
	}
	return 0, err
}

// observeWriter looks at the writer Job under way: done when it ended (the write recorded as
// written or failed, the Job and its ConfigMap deleted); otherwise when to look again.
func (rr *Recorder) observeWriter(ctx context.Context, t *Recordable, w benchv1.ResultsWriter, secret benchv1.SecretKeyRef) (bool, time.Duration, error) {
	job := &batchv1.Job{}
	err := rr.APIReader.Get(ctx, client.ObjectKey{Namespace: t.Obj.GetNamespace(), Name: w.Job}, job)
	if apierrors.IsNotFound(err) {
		// Decided but not created yet: the manager stopped in between. Create it now.
		wait, err := rr.ensureWriter(ctx, t, w, secret)
		return false, max(wait, 30*time.Second), err
	}
	if err != nil {
		return false, 0, err
	}
	if !kube.OwnedBy(job, t.Obj) {
		return false, 0, t.Update(ctx, func(r *benchv1.ResultsRecording, _ *[]metav1.Condition) {
			if r.Writer != nil && r.Writer.Job == w.Job {
				r.Writer = nil
			}
		})
	}
	switch {
	case kube.JobCondition(job, batchv1.JobComplete) != nil:
		rep := rr.writerReport(ctx, job)
		if t.Written != nil {
			if err := t.Written(ctx, rep, w); err != nil {
				return false, 0, err
			}
		}
		recovered := t.Recording().Failures
		if err := t.Update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if r.Writer == nil || r.Writer.Job != w.Job {
				return
			}
			r.StepsWritten = max(r.StepsWritten, w.Steps)
			r.EndWritten = r.EndWritten || w.End
			r.Writer, r.Failures, r.LastError, r.NextAttempt = nil, 0, "", nil
			r.LastWritten = &metav1.Time{Time: time.Now()}
			if t.Steps <= r.StepsWritten && (!t.Ended || r.EndWritten) {
				kube.SetCondition(c, t.Obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionTrue, benchv1.ReasonResultsWritten, writtenWords(t, r))
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
		msg = TruncateWords(msg, 1024)
		var next time.Time
		var failures int32
		if err := t.Update(ctx, func(r *benchv1.ResultsRecording, c *[]metav1.Condition) {
			if r.Writer == nil || r.Writer.Job != w.Job {
				return
			}
			r.Writer = nil
			r.Failures++
			failures = r.Failures
			r.LastError = msg
			next = time.Now().Add(rr.backoff(r.Failures))
			r.NextAttempt = &metav1.Time{Time: next}
			kube.SetCondition(c, t.Obj.GetGeneration(), benchv1.ConditionResultsRecorded, metav1.ConditionFalse, benchv1.ReasonResultsUnavailable,
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
func (rr *Recorder) backoff(n int32) time.Duration {
	base, top := rr.Config.Backoff, rr.Config.MaxBackoff
	if base <= 0 {
		base = DefaultConfig().Backoff
	}
	if top <= 0 {
		top = DefaultConfig().MaxBackoff
	}
	d := base
	for i := int32(1); i < n && d < top; i++ {
		d *= 2
	}
	return min(d, top)
}

// writerReport is the writer's termination message; a message that is not its JSON (the log tail
// the kubelet falls back to) is the error.
func (rr *Recorder) writerReport(ctx context.Context, job *batchv1.Job) outbox.WriterReport {
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
func (rr *Recorder) deleteWriter(ctx context.Context, t *Recordable, name string) {
	for _, obj := range []client.Object{&batchv1.Job{}, &corev1.ConfigMap{}} {
		err := rr.APIReader.Get(ctx, client.ObjectKey{Namespace: t.Obj.GetNamespace(), Name: name}, obj)
		if err == nil {
			_, err = kube.DeleteOwned(ctx, rr.Client, t.Obj, obj, client.PropagationPolicy(metav1.DeletePropagationBackground))
		}
		if err != nil && !apierrors.IsNotFound(err) {
			ctrl.LoggerFrom(ctx).Error(err, "deleting a results writer's object", "name", name)
		}
	}
}

func (rr *Recorder) event(t *Recordable, eventType, reason, format string, args ...any) {
	if rr.Recorder != nil {
		rr.Recorder.Eventf(t.Obj, nil, eventType, reason, "RecordResults", format, args...)
	}
}

func writerLabels(t *Recordable) map[string]string {
	out := map[string]string{}
	for k, v := range t.Labels {
		out[k] = v
	}
	return out
}

// backlogWords names what is not written yet: "steps 3..5 and the run's end".
func backlogWords(t *Recordable, r *benchv1.ResultsRecording) string {
	var parts []string
	switch n := t.Steps - r.StepsWritten; {
	case n == 1:
		parts = append(parts, fmt.Sprintf("step %d", r.StepsWritten))
	case n > 1:
		parts = append(parts, fmt.Sprintf("steps %d..%d", r.StepsWritten, t.Steps-1))
	}
	if t.Ended && !r.EndWritten {
		parts = append(parts, "the "+strings.ToLower(strings.TrimPrefix(t.Kind, "Benchmark"))+"'s end")
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// writtenWords says what the results database holds.
func writtenWords(t *Recordable, r *benchv1.ResultsRecording) string {
	what := fmt.Sprintf("%d %s", r.StepsWritten, pluralOf(int(r.StepsWritten), "step", "steps"))
	if t.Kind == outbox.KindSuite {
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

// TruncateWords cuts s to at most n bytes, never inside a character, and marks the cut with an
// ellipsis.
func TruncateWords(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// EndOf is how a resource ended, from its Failed or Complete condition: the key of its result.
func EndOf(phase benchv1.Phase, conditions []metav1.Condition) *outbox.End {
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
