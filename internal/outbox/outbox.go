// Package outbox is what the operator hands a results writer Job (docs/results.md): the record of
// one write — a run's new steps and its end, or a suite's end and the baseline to read back — and
// the layout of the files the Job finds mounted. The manager links no database driver: it writes
// the record into a ConfigMap of the run or suite, mounts it and the run's own step ConfigMaps into
// a Job of the client image (`tpcc results write`), which writes the rows. It is pure: the manager
// and the writer both import it.
package outbox

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Version is the record's schema version; the writer refuses a newer one.
const Version = 1

// Files of the mounted input directory.
const (
	// RecordFile is the record (this package's Record, JSON), from the write's own ConfigMap.
	RecordFile = "record.json"
	// RecordKey is its key in that ConfigMap.
	RecordKey = "record.json"
)

// Kinds of record.
const (
	KindRun   = "BenchmarkRun"
	KindSuite = "BenchmarkSuite"
)

// Record is one write.
type Record struct {
	Version int    `json:"version"`
	Kind    string `json:"kind"`
	// Written is when the operator prepared the write.
	Written time.Time `json:"written"`
	Run     *Run      `json:"run,omitempty"`
	Suite   *Suite    `json:"suite,omitempty"`
}

// Object identifies the resource.
type Object struct {
	UID       string            `json:"uid"`
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Labels    map[string]string `json:"labels,omitempty"`
	Created   time.Time         `json:"created"`
}

// Run is a run's write: its identity, spec and status as of the write, the steps this write adds
// (their data and series files), and its end once it has ended.
type Run struct {
	Object
	// Suite is the suite the run belongs to, if any.
	Suite  *SuiteRef                  `json:"suite,omitempty"`
	Spec   benchv1.BenchmarkRunSpec   `json:"spec"`
	Status benchv1.BenchmarkRunStatus `json:"status"`
	// Steps are the steps of status.steps this write adds.
	Steps []StepFiles `json:"steps,omitempty"`
	// End is the run's end, when this write records it.
	End *End `json:"end,omitempty"`
}

// SuiteRef names the suite a run belongs to.
type SuiteRef struct {
	UID      string `json:"uid"`
	Name     string `json:"name"`
	Database string `json:"database,omitempty"`
	Repeat   int32  `json:"repeat,omitempty"`
}

// StepFiles are one step's files in the mounted directory; a file that is absent (the step
// ConfigMap of a step that failed before measuring) is written as NULL.
type StepFiles struct {
	Index int32 `json:"index"`
	// Data is step.json of the step ConfigMap <run>-step-N: summary, verdict, histograms.
	Data string `json:"data"`
	// Series are the parts of the step's series (series.json.gz of <run>-step-N-series and its
	// part ConfigMaps), in order: concatenated, the gzipped series document.
	Series []string `json:"series,omitempty"`
}

// End is how a run or suite ended.
type End struct {
	Phase   benchv1.Phase `json:"phase"`
	Reason  string        `json:"reason,omitempty"`
	Message string        `json:"message,omitempty"`
	// Generation is the resource's generation when it ended (the Complete or Failed condition's
	// observedGeneration): with the UID, the key of the result.
	Generation int64     `json:"generation"`
	Time       time.Time `json:"time"`
}

// Suite is a suite's write: its identity, spec and status, and the baseline to read.
type Suite struct {
	Object
	Spec   benchv1.BenchmarkSuiteSpec   `json:"spec"`
	Status benchv1.BenchmarkSuiteStatus `json:"status"`
	// Comparison is comparison.json.
	Comparison json.RawMessage `json:"comparison,omitempty"`
	End        *End            `json:"end,omitempty"`
	// Baseline, when set, asks the writer to read the baseline suite's figures back; it answers
	// in its termination message (BaselineAnswer).
	Baseline *benchv1.SuiteBaseline `json:"baseline,omitempty"`
}

// StepDir is where a step's files are mounted.
func StepDir(index int32) string { return path.Join("steps", strconv.Itoa(int(index))) }

// StepDataFile and StepSeriesFile name a step's files: the step data, and series part k (0: the
// first ConfigMap's).
func StepDataFile(index int32) string { return path.Join(StepDir(index), "step.json") }
func StepSeriesFile(index int32, k int) string {
	if k == 0 {
		return path.Join(StepDir(index), "series.json.gz")
	}
	return path.Join(StepDir(index), fmt.Sprintf("series.part-%d.json.gz", k))
}

// Source is one ConfigMap mounted into the writer: its keys at the paths of the input directory.
type Source struct {
	ConfigMap string
	Items     []Item
}

// Item maps a ConfigMap key to a path.
type Item struct{ Key, Path string }

// Encode and Decode read and write record.json.
func Encode(r Record) ([]byte, error) { return json.Marshal(r) }

func Decode(body []byte) (Record, error) {
	var r Record
	if err := json.Unmarshal(body, &r); err != nil {
		return r, fmt.Errorf("%s: %w", RecordFile, err)
	}
	if r.Version < 1 || r.Version > Version {
		return r, fmt.Errorf("%s: version %d, this writer knows versions 1..%d", RecordFile, r.Version, Version)
	}
	switch {
	case r.Kind == KindRun && r.Run != nil:
	case r.Kind == KindSuite && r.Suite != nil:
	default:
		return r, fmt.Errorf("%s: kind %q without its %s", RecordFile, r.Kind, r.Kind)
	}
	return r, nil
}

// BaselineAnswer is what a suite's writer reports of the baseline (in its termination message, at
// most 4 KiB): the baseline suite and, per database, the figures of its runs with a result.
type BaselineAnswer struct {
	// Found is false when no suite matched; Message then says what was looked for.
	Found   bool   `json:"found"`
	Message string `json:"message,omitempty"`
	// Suite is namespace/name, UID its UID, Ended its end.
	Suite     string                     `json:"suite,omitempty"`
	UID       string                     `json:"uid,omitempty"`
	Ended     time.Time                  `json:"ended,omitzero"`
	Databases map[string]BaselineFigures `json:"databases,omitempty"`
}

// BaselineFigures are one database's results in the baseline suite: each run's tpmC and the
// New-Orders counted at its result step, and each run's largest compliant warehouse count with
// the search's precision.
type BaselineFigures struct {
	TpmC       []float64 `json:"tpmC"`
	NewOrders  []float64 `json:"newOrders"`
	Warehouses []float64 `json:"warehouses"`
	Precision  []float64 `json:"precision"`
}

// TerminationLog is where the writer leaves its WriterReport for the operator (the container's
// terminationMessagePath).
const TerminationLog = "/dev/termination-log"

// WriterReport is the writer's termination message (JSON, under 4 KiB): what it wrote, or why it
// failed (never credentials), and for a suite naming a baseline, the baseline.
type WriterReport struct {
	Written  string          `json:"written,omitempty"`
	Error    string          `json:"error,omitempty"`
	Baseline *BaselineAnswer `json:"baseline,omitempty"`
}
