package searchsim

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"
)

// Sweep is a recorded capacity sweep of a real database (hack/search-sweep.sh, condensed by
// hack/searchsweep): full-length steps at every active warehouse count of a range, several repeats
// per count, each with the figures the operator records for it as a full step and as a probe.
type Sweep struct {
	Meta SweepMeta `json:"meta"`
	// RampUpSeconds, DurationSeconds and ProbeSeconds are the recorded step lengths: every step
	// ramped up, then measured DurationSeconds; its probe figures are its first ProbeSeconds of
	// measurement.
	RampUpSeconds   float64 `json:"rampUpSeconds"`
	DurationSeconds float64 `json:"durationSeconds"`
	ProbeSeconds    float64 `json:"probeSeconds"`
	// SLA is what every step was judged against.
	SLA   SweepSLA    `json:"sla"`
	Steps []SweepStep `json:"steps"`
}

// SweepMeta says what was measured, where, when and how.
type SweepMeta struct {
	Date       string `json:"date"`
	Command    string `json:"command"`
	Commit     string `json:"commit"`
	Machine    string `json:"machine"`
	Database   string `json:"database"`
	Constraint string `json:"constraint"`
	Workload   string `json:"workload"`
	// Load is the machine's other load while the sweep ran (it is shared): the range and median
	// of the 1-minute load average over the steps.
	Load string `json:"load"`
	// Derivation says how the full and probe figures were derived from the recorded series.
	Derivation string `json:"derivation"`
}

// SweepSLA is the SLA the steps were judged against.
type SweepSLA struct {
	MinEfficiencyPercent float64 `json:"minEfficiencyPercent"`
	MaxErrorPercent      float64 `json:"maxErrorPercent"`
	Latency              string  `json:"latency"`
}

// SweepStep is one recorded step.
type SweepStep struct {
	Active int    `json:"active"`
	Repeat int    `json:"repeat"`
	Start  string `json:"start"`
	// Load1 is the machine's 1-minute load average when the step started.
	Load1 float64 `json:"load1"`
	// PrimaryThrottledPercent is the share of CFS periods in which the primary hit its quota.
	PrimaryThrottledPercent float64 `json:"primaryThrottledPercent"`
	// Full is the step as the operator records a full-length step (ended early, with the figures
	// up to then, once its verdict could no longer change); Probe the first ProbeSeconds of its
	// measured interval as the operator records a probe; Whole the whole measured interval.
	Full  StepFigures `json:"full"`
	Probe StepFigures `json:"probe"`
	Whole StepFigures `json:"whole"`
	// NewOrders are the New-Orders completed in each interval of the measured interval.
	NewOrders []int64 `json:"newOrders"`
}

// StepFigures are a step's figures as the search and the report see them.
type StepFigures struct {
	// MeasuredSeconds is the measured time the figures cover: less than planned when the step
	// ended early.
	MeasuredSeconds   float64            `json:"measuredSeconds"`
	TpmC              float64            `json:"tpmC"`
	EfficiencyPercent float64            `json:"efficiencyPercent"`
	LatencyRatio      float64            `json:"latencyRatio"`
	ErrorPercent      float64            `json:"errorPercent"`
	P90Millis         map[string]float64 `json:"p90Millis"`
	Compliant         bool               `json:"compliant"`
	Reasons           []string           `json:"reasons,omitempty"`
}

// ReadSweep reads and checks a sweep file.
func ReadSweep(path string) (*Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Sweep
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// Validate checks what the replay relies on: positive step lengths, a probe no longer than a
// full step, and every count of the range Counts returns recorded at least once.
func (s *Sweep) Validate() error {
	switch {
	case s.RampUpSeconds < 0 || s.DurationSeconds <= 0 || s.ProbeSeconds <= 0 || s.ProbeSeconds > s.DurationSeconds:
		return fmt.Errorf("step lengths: ramp-up %gs, duration %gs, probe %gs", s.RampUpSeconds, s.DurationSeconds, s.ProbeSeconds)
	case len(s.Steps) == 0:
		return fmt.Errorf("no steps")
	}
	counts := s.Counts()
	for w := counts[0]; w <= counts[len(counts)-1]; w++ {
		if _, ok := slices.BinarySearch(counts, w); !ok {
			return fmt.Errorf("count %d is missing from the recorded range %d..%d", w, counts[0], counts[len(counts)-1])
		}
	}
	for i, st := range s.Steps {
		if st.Full.MeasuredSeconds <= 0 || st.Probe.MeasuredSeconds <= 0 || st.Whole.MeasuredSeconds <= 0 {
			return fmt.Errorf("steps[%d] (%d warehouses, repeat %d): a figure set without measured time", i, st.Active, st.Repeat)
		}
	}
	return nil
}

// Timing is the sweep's step lengths.
func (s *Sweep) Timing() Timing {
	second := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	return Timing{RampUp: second(s.RampUpSeconds), Duration: second(s.DurationSeconds), Probe: second(s.ProbeSeconds)}
}

// Counts are the recorded active warehouse counts, ascending.
func (s *Sweep) Counts() []int {
	var out []int
	for _, st := range s.Steps {
		if _, ok := slices.BinarySearch(out, st.Active); !ok {
			out = append(out, st.Active)
			slices.Sort(out)
		}
	}
	return out
}

// At are the recorded repeats at active warehouses, in recording order.
func (s *Sweep) At(active int) []SweepStep {
	var out []SweepStep
	for _, st := range s.Steps {
		if st.Active == active {
			out = append(out, st)
		}
	}
	return out
}
