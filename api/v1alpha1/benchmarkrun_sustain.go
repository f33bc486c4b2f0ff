package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// SustainSpec asks whether the database holds the capacity the search found: after the search,
// one long step (kind Sustain) at a share of the warehouses found, its SLA judged over every
// window of it (docs/sustain.md).
//
// +kubebuilder:validation:XValidation:rule="!has(self.window) || duration(self.window) <= duration(self.duration)",fieldPath=".window",message="sustain.window must not exceed sustain.duration"
type SustainSpec struct {
	// Percent of the largest compliant active warehouse count the phase drives (rounded, at
	// least 1): roachtest's headroom test runs at a fraction of the maximum found.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=70
	// +optional
	Percent int32 `json:"percent,omitempty"`

	// Duration of the phase's measured interval: hours, to see what a 10-minute step does not
	// (checkpoints, vacuum, lag, growth). At most 24h.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1m') && duration(self) <= duration('24h')",message="sustain.duration must be between 1m and 24h"
	Duration metav1.Duration `json:"duration"`

	// Window is the stretch the SLA is judged over, one after the other through the phase
	// (rounded up to whole series intervals): default 1m.
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10s')",message="sustain.window must be at least 10s"
	// +optional
	Window *metav1.Duration `json:"window,omitempty"`
}

// SustainRecord is what a sustained step showed: whether the SLA held in every window, when it
// first broke and what the database showed then, and the trends over the phase.
type SustainRecord struct {
	// Held: no window broke the SLA.
	Held bool `json:"held"`
	// Windows judged, each Window long.
	Windows int32           `json:"windows"`
	Window  metav1.Duration `json:"window"`
	// FirstBreach is the first window that broke the SLA.
	// +optional
	FirstBreach *SustainBreach `json:"firstBreach,omitempty"`
	// BrokenWindows counts the windows that broke it.
	// +optional
	BrokenWindows int32 `json:"brokenWindows,omitempty"`
	// TpmCSlopePerHour is the least-squares trend of the windows' tpmC, per hour of the phase;
	// P90SlopeMillisPerHour that of each type's p90 in milliseconds per hour (from the windows'
	// exact histograms).
	TpmCSlopePerHour float64 `json:"tpmCSlopePerHour"`
	// +optional
	P90SlopeMillisPerHour map[Transaction]float64 `json:"p90SlopeMillisPerHour,omitempty"`
}

// SustainBreach is the first window of a sustained step that broke the SLA.
type SustainBreach struct {
	// After is how far into the measured interval the window began.
	After metav1.Duration `json:"after"`
	// Reasons name what broke, measured against its bound.
	// +listType=atomic
	Reasons []string `json:"reasons"`
	// Signals are the database's signals in that window: checkpoints, replication lag, WAL rate,
	// sessions waiting for the synchronous standbys.
	// +listType=atomic
	// +optional
	Signals []string `json:"signals,omitempty"`
}

// SustainedResult is the result's sustained phase, beside the search's figure.
type SustainedResult struct {
	// Step is the index in status.steps of the sustained step.
	Step int32 `json:"step"`
	// ActiveWarehouses the phase drove, for Duration.
	ActiveWarehouses int32           `json:"activeWarehouses"`
	Duration         metav1.Duration `json:"duration"`
	// Held: the SLA held over every window. BrokeAfter says when it first did not, Reason why.
	Held bool `json:"held"`
	// +optional
	BrokeAfter *metav1.Duration `json:"brokeAfter,omitempty"`
	// +optional
	Reason string `json:"reason,omitempty"`
	// TpmC of the whole phase.
	TpmC float64 `json:"tpmC"`
}
