package run

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/chunked"
	"github.com/tpcc-operator/tpcc-operator/internal/measure"
)

// A step's time series is collected while the step runs: each poll reads every client pod with
// ?intervalsAfter=N, where N is the last interval already kept, so a pod hands over (and drops)
// only what the operator has stored. The intervals every pod has sealed are merged exactly
// (snapshot.MergeIntervals), compacted and appended to the step's series ConfigMap; resource
// samples of the database and client pods join them. A restarted operator reads the ConfigMap
// back and goes on from N: nothing is collected twice or lost.

// SeriesConfigMapName names the ConfigMap that keeps a step's time series while it is collected.
func SeriesConfigMapName(run *benchv1.BenchmarkRun, index int32) string {
	return fmt.Sprintf("%s-step-%d-series", run.Name, index)
}

const seriesKey = "series.json.gz"

// loadSeries returns the step's series as kept in memory or, after a restart, in its ConfigMap.
func (r *Reconciler) loadSeries(ctx context.Context, run *benchv1.BenchmarkRun, index int32) (*measure.StepSeries, error) {
	key := seriesCacheKey(run, index)
	if v, ok := r.series.Load(key); ok {
		return v.(*measure.StepSeries), nil
	}
	st := &measure.StepSeries{Version: measure.SeriesVersion}
	body, found, err := r.readChunked(ctx, run, SeriesConfigMapName(run, index))
	switch {
	case err != nil:
		return nil, err
	case found:
		if err := measure.GunzipJSON(body, st); err != nil {
			return nil, fmt.Errorf("ConfigMap %s: %w", SeriesConfigMapName(run, index), err)
		}
	}
	r.series.Store(key, st)
	return st, nil
}

// writeChunked keeps body under seriesKey in ConfigMap name and, when it is larger than one
// ConfigMap holds, in parts beside it (internal/chunked): a series never outgrows its store. The
// parts are written before the first ConfigMap, which says how many there are, so a reader never
// sees a count whose parts are missing.
func (r *Reconciler) writeChunked(ctx context.Context, run *benchv1.BenchmarkRun, name string, body []byte) error {
	pieces := chunked.Split(body, chunked.MaxBytes)
	for k := 1; k < len(pieces); k++ {
		if err := r.applyConfigMap(ctx, run, chunked.PartName(name, k), nil, map[string][]byte{seriesKey: pieces[k]}); err != nil {
			return err
		}
	}
	return r.applyConfigMap(ctx, run, name, map[string]string{chunked.PartsKey: strconv.Itoa(len(pieces))}, map[string][]byte{seriesKey: pieces[0]})
}

// readChunked reads what writeChunked kept; found is false when the first ConfigMap is absent.
func (r *Reconciler) readChunked(ctx context.Context, run *benchv1.BenchmarkRun, name string) (body []byte, found bool, err error) {
	get := func(name string) (*corev1.ConfigMap, error) {
		cm := &corev1.ConfigMap{}
		err := r.APIReader.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: name}, cm)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return cm, err
	}
	first, err := get(name)
	if err != nil || first == nil {
		return nil, false, err
	}
	body, err = chunked.Join(first, seriesKey, get)
	return body, err == nil, err
}

// saveSeries writes the step's series to its ConfigMap. Until it succeeds the pods keep the
// intervals (the next read asks from the last index stored); on failure the memory copy is
// dropped so the next pass starts again from what is stored.
func (r *Reconciler) saveSeries(ctx context.Context, run *benchv1.BenchmarkRun, index int32, st *measure.StepSeries) error {
	body, err := measure.GzipJSON(st)
	if err == nil {
		err = r.writeChunked(ctx, run, SeriesConfigMapName(run, index), body)
	}
	if err != nil {
		r.series.Delete(seriesCacheKey(run, index))
	}
	return err
}

// forgetSeries drops the memory copy of a recorded step's series (its ConfigMap stays for the report).
func (r *Reconciler) forgetSeries(run *benchv1.BenchmarkRun, index int32) {
	r.series.Delete(seriesCacheKey(run, index))
}

func seriesCacheKey(run *benchv1.BenchmarkRun, index int32) string {
	return string(run.UID) + "/" + strconv.Itoa(int(index))
}

// readSeries gathers the recorded steps' series from their ConfigMaps into series.json.gz. It stops
// decoding once their compressed bodies add up to more than budget bytes — the report ConfigMap
// could not hold them, and the manager's memory stays bounded whatever the steps — and then
// returns no series with the compressed bytes read so far.
func (r *Reconciler) readSeries(ctx context.Context, run *benchv1.BenchmarkRun, budget int) ([]byte, int, error) {
	rep := measure.SeriesReport{SchemaVersion: measure.SeriesVersion, Steps: []measure.IndexedSeries{}}
	compressed := 0
	for _, step := range run.Status.Steps {
		body, found, err := r.readChunked(ctx, run, SeriesConfigMapName(run, step.Index))
		if err != nil {
			return nil, 0, err
		}
		if !found {
			continue // a step that failed before its first interval was collected
		}
		if compressed += len(body); compressed > budget {
			return nil, compressed, nil
		}
		var st measure.StepSeries
		if err := measure.GunzipJSON(body, &st); err != nil {
			return nil, 0, fmt.Errorf("ConfigMap %s: %w", SeriesConfigMapName(run, step.Index), err)
		}
		rep.Steps = append(rep.Steps, measure.IndexedSeries{Index: step.Index, StepSeries: st})
	}
	series, err := measure.GzipJSON(rep)
	return series, len(series), err
}
