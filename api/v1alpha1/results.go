package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The results database (docs/results.md): a PostgreSQL database the operator records every step and
// every result into, so results outlive the resources that measured them and can be compared with
// earlier ones (kubectl tpcc history, kubectl tpcc compare --baseline). The manager links no
// database driver: it writes what it records into ConfigMaps of the run and starts a short writer
// Job of the client image — the only pod that mounts the results Secret — which writes the rows
// idempotently. A results database that is down never fails a benchmark: the writes wait, the
// condition ResultsRecorded says so, and the backlog is written once the database is back.

// ResultsSpec names the results database.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.secretRef) && has(self.disabled) && self.disabled)",message="results: secretRef and disabled exclude each other"
type ResultsSpec struct {
	// SecretRef names a Secret in the resource's namespace and its key holding the results
	// database's URI (postgres://user:password@host:port/database; CloudNativePG's
	// <cluster>-app Secret holds one under uri). When omitted, the operator-wide default
	// (--results-secret, chart value results.secretName) applies, if there is one.
	// +optional
	SecretRef *SecretKeyRef `json:"secretRef,omitempty"`

	// Disabled records nothing into a results database, not even the operator-wide default.
	// +optional
	Disabled bool `json:"disabled,omitempty"`
}

// Condition types and reasons of the results database, on runs and suites.
const (
	// ConditionResultsRecorded is True when the results database holds everything the resource
	// has recorded so far, False while a write is under way or has failed (the reason says which;
	// the message names the backlog and the next attempt). It never fails a run.
	ConditionResultsRecorded = "ResultsRecorded"

	ReasonResultsWritten      = "Written"
	ReasonResultsPending      = "Pending"
	ReasonResultsWriting      = "Writing"
	ReasonResultsUnavailable  = "DatabaseUnavailable"
	ReasonResultsSecretAbsent = "SecretNotFound"

	// ConditionBaselineHeld is a suite's regression verdict against its spec.baseline: True when
	// no figure is worse than the tolerance beyond its noise, False (reason Regressed) naming the
	// figures that are, Unknown while the baseline has not been read.
	ConditionBaselineHeld = "BaselineHeld"

	ReasonBaselineHeld       = "WithinTolerance"
	ReasonBaselineRegressed  = "Regressed"
	ReasonBaselinePending    = "Pending"
	ReasonBaselineNotFound   = "BaselineNotFound"
	ReasonBaselineNoDatabase = "NoResultsDatabase"
)

// ResultsRecording is where a resource's rows in the results database stand: what was written,
// the writer Job under way, and the failed attempts since the last write. It never holds
// credentials, only the Secret's name.
type ResultsRecording struct {
	// Secret is the Secret (name/key) whose URI the rows go to, fixed at the first write.
	Secret string `json:"secret"`

	// StepsWritten: status.steps[0:stepsWritten] are in the results database (runs).
	// +optional
	StepsWritten int32 `json:"stepsWritten,omitempty"`

	// EndWritten: the resource's end — a run's result or failure, a suite's comparison — is in the
	// results database.
	// +optional
	EndWritten bool `json:"endWritten,omitempty"`

	// Writes counts the writer Jobs created; the next is named <name>-results-<writes+1>.
	// +optional
	Writes int32 `json:"writes,omitempty"`

	// Writer is the writer Job under way.
	// +optional
	Writer *ResultsWriter `json:"writer,omitempty"`

	// Failures counts the failed writes since the last one that succeeded.
	// +optional
	Failures int32 `json:"failures,omitempty"`

	// LastError is why the last write failed (the writer's own words, never credentials).
	// +optional
	LastError string `json:"lastError,omitempty"`

	// NextAttempt is when the next writer Job starts after a failure (backoff doubling from 10 s
	// to 5 min).
	// +optional
	NextAttempt *metav1.Time `json:"nextAttempt,omitempty"`

	// LastWritten is when the results database last acknowledged a write.
	// +optional
	LastWritten *metav1.Time `json:"lastWritten,omitempty"`
}

// ResultsWriter is one writer Job: what it writes.
type ResultsWriter struct {
	// Job is the writer Job's name (its ConfigMap of the same name holds what it writes).
	Job string `json:"job"`
	// Steps: the Job writes status.steps[stepsWritten:steps].
	// +optional
	Steps int32 `json:"steps,omitempty"`
	// End: the Job writes the resource's end too.
	// +optional
	End bool `json:"end,omitempty"`
	// StartTime is when the Job was created.
	StartTime metav1.Time `json:"startTime"`
}

// SuiteBaseline names the earlier suite a suite is compared with once it ends, from the results
// database: the latest suite by that name, or with those labels, that ended before this one.
//
// +kubebuilder:validation:XValidation:rule="has(self.suite) != has(self.matchLabels)",message="baseline: name exactly one of suite and matchLabels"
type SuiteBaseline struct {
	// Suite is the name of an earlier BenchmarkSuite of this namespace in the results database.
	// +kubebuilder:validation:MaxLength=63
	// +optional
	Suite string `json:"suite,omitempty"`

	// MatchLabels selects the latest earlier suite of this namespace carrying all these labels.
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`

	// TolerancePercent is how much worse than the baseline, in percent, a figure may be before
	// it is a regression — beyond its noise (repeats' 95 % confidence intervals, or a single
	// run's counting noise).
	// +kubebuilder:default="5"
	// +kubebuilder:validation:Pattern=`^[0-9]+(\.[0-9]+)?$`
	// +kubebuilder:validation:XValidation:rule="double(self) <= 100.0",message="tolerancePercent must be between 0 and 100"
	// +optional
	TolerancePercent string `json:"tolerancePercent,omitempty"`
}

// RegressionStatus is a suite's comparison with its baseline.
type RegressionStatus struct {
	// Baseline names the suite compared with (namespace/name and its UID).
	// +optional
	Baseline string `json:"baseline,omitempty"`
	// BaselineEnded is when the baseline suite ended.
	// +optional
	BaselineEnded *metav1.Time `json:"baselineEnded,omitempty"`
	// TolerancePercent is the tolerance applied.
	TolerancePercent string `json:"tolerancePercent"`
	// Regressed is true when some figure is worse than the tolerance beyond its noise.
	Regressed bool `json:"regressed"`
	// Figures are each compared figure, per database.
	// +listType=atomic
	// +optional
	Figures []FigureComparison `json:"figures,omitempty"`
	// Message says it in a sentence, naming the regressed figures.
	// +optional
	Message string `json:"message,omitempty"`
}

// FigureComparison is one figure against its baseline. Values are shown as the renderers round
// them; percentages are of the baseline.
type FigureComparison struct {
	// Figure names it: "<database> tpmC", "<database> maxCompliantWarehouses".
	Figure string `json:"figure"`
	// Baseline and Value are the baseline's and this one's value (means over repeats).
	Baseline string `json:"baseline"`
	Value    string `json:"value"`
	// ChangePercent is the change, signed (negative: lower).
	ChangePercent string `json:"changePercent"`
	// NoisePercent is the 95 % half-width of the change from both sides' noise.
	NoisePercent string `json:"noisePercent"`
	// Verdict: Regressed, Within, Improved.
	Verdict string `json:"verdict"`
}
