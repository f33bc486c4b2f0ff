package report

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Series is a run report's series.json.gz as the renderers read it: every step's time series
// (the operator writes it from its step series ConfigMaps; docs/telemetry.md describes it).
type Series struct {
	SchemaVersion int          `json:"schemaVersion"`
	Steps         []StepSeries `json:"steps"`
}

// StepSeries is one step's time series: entry i of Series covers
// [Origin + Index[i]·LengthSeconds, Origin + Series.End(i)·LengthSeconds) — one interval, or
// several where a long step was downsampled (series version 2, docs/telemetry.md "Long steps").
type StepSeries struct {
	Index         int32                  `json:"index"`
	Origin        time.Time              `json:"origin,omitzero"`
	LengthSeconds float64                `json:"lengthSeconds,omitempty"`
	Missing       int                    `json:"missing"`
	Series        snapshot.CompactSeries `json:"series"`
	// Resources are each database and client pod's per-interval peaks, by pod name.
	Resources map[string]*PodSeries `json:"resources,omitempty"`
}

// PodSeries is one pod's resource use by interval (the operator's and the reports' one type).
type PodSeries = snapshot.PodSeries

// DecodeSeries reads series.json.gz (at most 64 MiB unpacked).
func DecodeSeries(gz []byte) (*Series, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("series.json.gz: %w", err)
	}
	body, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("series.json.gz: %w", err)
	}
	var s Series
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("series.json.gz: %w", err)
	}
	return &s, nil
}

// Step is the series of step index, or nil.
func (s *Series) Step(index int32) *StepSeries {
	if s == nil {
		return nil
	}
	for i := range s.Steps {
		if s.Steps[i].Index == index {
			return &s.Steps[i]
		}
	}
	return nil
}

// DecodeStepSeries reads one step's series ConfigMap (<run>-step-N-series, key series.json.gz):
// the same document as a step of series.json.gz, without its index. A run under way, or one whose
// series.json.gz did not fit its report ConfigMap, has its series there.
func DecodeStepSeries(gz []byte, index int32) (*StepSeries, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("step %d series: %w", index, err)
	}
	body, err := io.ReadAll(io.LimitReader(zr, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("step %d series: %w", index, err)
	}
	var s StepSeries
	if err := json.Unmarshal(body, &s); err != nil {
		return nil, fmt.Errorf("step %d series: %w", index, err)
	}
	s.Index = index
	return &s, nil
}
