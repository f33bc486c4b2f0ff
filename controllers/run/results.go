package run

import (
	"context"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/chunked"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
	"github.com/tpcc-operator/tpcc-operator/internal/kube"
	"github.com/tpcc-operator/tpcc-operator/internal/outbox"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
	"github.com/tpcc-operator/tpcc-operator/internal/resultsdb"
)

// recordResults writes what the run recorded into its results database (results.go) and says
// when to look again. It never fails the run: its errors are logged and retried.
func (r *Reconciler) recordResults(ctx context.Context, run *benchv1.BenchmarkRun) time.Duration {
	rr := &resultsdb.Recorder{Client: r.Client, APIReader: r.APIReader, Scheme: r.Scheme, Recorder: r.Recorder, Config: r.Config.Results, Jobs: r.Config.Jobs}
	t := &resultsdb.Recordable{
		Obj: run, Kind: outbox.KindRun, Spec: run.Spec.Results, Labels: engines.Labels(run),
		Recording: func() *benchv1.ResultsRecording { return run.Status.ResultsDatabase },
		Steps:     int32(len(run.Status.Steps)),
		Ended:     report.Final(run.Status.Phase),
		Update: func(ctx context.Context, mutate func(*benchv1.ResultsRecording, *[]metav1.Condition)) error {
			return r.updateStatus(ctx, run, func(s *benchv1.BenchmarkRunStatus) {
				if s.ResultsDatabase == nil {
					s.ResultsDatabase = &benchv1.ResultsRecording{}
				}
				mutate(s.ResultsDatabase, &s.Conditions)
			})
		},
		Build: func(ctx context.Context, w benchv1.ResultsWriter, from int32) (outbox.Record, []outbox.Source, error) {
			return r.runRecord(ctx, run, w, from)
		},
	}
	wait, _ := rr.Record(ctx, t)
	return wait
}

// runRecord is the record of writer w: the run as of its first w.Steps steps, the files of steps
// from..w.Steps-1 (their step and series ConfigMaps, mounted as the writer's sources) and, when w
// writes it, the run's end.
func (r *Reconciler) runRecord(ctx context.Context, run *benchv1.BenchmarkRun, w benchv1.ResultsWriter, from int32) (outbox.Record, []outbox.Source, error) {
	status := run.Status.DeepCopy()
	status.ResultsDatabase = nil
	meta.RemoveStatusCondition(&status.Conditions, benchv1.ConditionResultsRecorded)
	status.Steps = status.Steps[:min(len(status.Steps), int(w.Steps))]
	rec := &outbox.Run{
		Object: outbox.Object{UID: string(run.UID), Namespace: run.Namespace, Name: run.Name, Labels: run.Labels, Created: run.CreationTimestamp.UTC()},
		Spec:   run.Spec, Status: *status,
	}
	if owner := metav1.GetControllerOf(run); owner != nil && owner.Kind == "BenchmarkSuite" {
		rec.Suite = &outbox.SuiteRef{UID: string(owner.UID), Name: owner.Name, Database: run.Labels[benchv1.SuiteDatabaseLabel], Repeat: repeatOf(run.Name)}
	}
	if w.End {
		rec.End = resultsdb.EndOf(run.Status.Phase, run.Status.Conditions)
	}
	var sources []outbox.Source
	for _, s := range status.Steps[min(int(from), len(status.Steps)):] {
		files := outbox.StepFiles{Index: s.Index}
		data, err := r.configMapExists(ctx, run, StepConfigMapName(run, s.Index))
		if err != nil {
			return outbox.Record{}, nil, err
		}
		if data != nil {
			files.Data = outbox.StepDataFile(s.Index)
			sources = append(sources, outbox.Source{ConfigMap: data.Name, Items: []outbox.Item{{Key: "step.json", Path: files.Data}}})
		}
		series, err := r.configMapExists(ctx, run, SeriesConfigMapName(run, s.Index))
		if err != nil {
			return outbox.Record{}, nil, err
		}
		if series != nil {
			parts := 1
			if v, err := strconv.Atoi(series.Data[chunked.PartsKey]); err == nil && v > 1 {
				parts = v
			}
			for k := range parts {
				name := series.Name
				if k > 0 {
					name = chunked.PartName(series.Name, k)
				}
				path := outbox.StepSeriesFile(s.Index, k)
				files.Series = append(files.Series, path)
				sources = append(sources, outbox.Source{ConfigMap: name, Items: []outbox.Item{{Key: seriesKey, Path: path}}})
			}
		}
		rec.Steps = append(rec.Steps, files)
	}
	return outbox.Record{Version: outbox.Version, Kind: outbox.KindRun, Written: time.Now().UTC(), Run: rec}, sources, nil
}

// configMapExists reads a ConfigMap of the run; nil when it is absent or not the run's.
func (r *Reconciler) configMapExists(ctx context.Context, run *benchv1.BenchmarkRun, name string) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{}
	err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !kube.OwnedBy(cm, run) {
		return nil, nil // someone else's: never handed to the writer as the run's
	}
	return cm, nil
}

// repeatOf is the repeat of a suite's run, from its name <suite>-<database>-<repeat>.
func repeatOf(name string) int32 {
	i := strings.LastIndexByte(name, '-')
	n, err := strconv.Atoi(name[i+1:])
	if i < 0 || err != nil {
		return 0
	}
	return int32(n)
}
