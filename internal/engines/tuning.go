package engines

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Tuner is implemented by the backends whose engine takes settings a run asks for (the engine's own
// spec fields, the sizing, what workload.isolation needs). The run's environment records each
// beside the value the database reports (TuningRecord).
type Tuner interface {
	// Tuning lists the settings the run asks the engine for, in the engine's own names, with
	// their sources; Effective is left for the database to fill, Note says when it cannot.
	Tuning(run *benchv1.BenchmarkRun) []benchv1.EngineSetting
}

// Sources of requested settings every engine may have (benchv1.EngineSetting.Source); an engine's
// own fields are sources of its own (its folder names them).
const (
	SourceSizing    = "sizing"
	SourceIsolation = "workload.isolation"
)

// SettingNames are the names of the settings a client reads back (tpcc run --show-setting): those
// without a note saying they cannot be read.
func SettingNames(settings []benchv1.EngineSetting) []string {
	var out []string
	for _, s := range settings {
		if s.Note == "" {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Unsized is the settings a run asked for that the operator did not size from the database's
// resources: those a step's settings must still read back as at the first step (a resource switch
// between phases re-sizes the sized ones).
func Unsized(settings []benchv1.EngineSetting) []benchv1.EngineSetting {
	var out []benchv1.EngineSetting
	for _, s := range settings {
		if s.Source != SourceSizing {
			out = append(out, s)
		}
	}
	return out
}

// TuningRecord fills each requested setting's effective value from what the database reported
// (the sampling client's server settings; settingsError says why some or all could not be
// read), and notes a value that differs from the request. It is pure.
func TuningRecord(requested []benchv1.EngineSetting, reported map[string]string, settingsError string) []benchv1.EngineSetting {
	out := make([]benchv1.EngineSetting, 0, len(requested))
	for _, s := range requested {
		if s.Note == "" {
			if v, ok := reported[s.Name]; ok {
				s.Effective = v
				if !SameSettingValue(s.Requested, v) {
					s.Note = "the database reports another value than the run asked for"
				}
			} else if settingsError != "" {
				s.Note = "not read: " + settingsError
			} else {
				s.Note = "not reported by the database"
			}
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var sizeOrDuration = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)$`)

// SameSettingValue says whether a reported value is the requested one in another spelling: the
// same text ignoring case and spaces (CockroachDB shows "64 MiB" for 64MiB), the same boolean
// (on/true/yes/1), the same memory size (PostgreSQL shows 262144kB as 256MB: kB, MB, GB, TB, and
// KiB… as powers of 1024) or the same duration (PostgreSQL's ms, s, min, h, d; Go's 5m0s).
func SameSettingValue(requested, reported string) bool {
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }
	a, b := norm(requested), norm(reported)
	if a == b {
		return true
	}
	if x, ok := boolValue(a); ok {
		if y, ok := boolValue(b); ok {
			return x == y
		}
	}
	if x, ok := sizeValue(a); ok {
		if y, ok := sizeValue(b); ok {
			return x == y
		}
	}
	if x, ok := durationValue(a); ok {
		if y, ok := durationValue(b); ok {
			return x == y
		}
	}
	return false
}

func boolValue(s string) (bool, bool) {
	switch s {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}

func sizeValue(s string) (float64, bool) {
	m := sizeOrDuration.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	units := map[string]float64{"b": 1, "kb": 1 << 10, "kib": 1 << 10, "mb": 1 << 20, "mib": 1 << 20, "gb": 1 << 30, "gib": 1 << 30, "tb": 1 << 40, "tib": 1 << 40}
	u, ok := units[m[2]]
	if !ok {
		return 0, false
	}
	return v * u, true
}

func durationValue(s string) (time.Duration, bool) {
	if d, err := time.ParseDuration(s); err == nil {
		return d, true
	}
	m := sizeOrDuration.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	units := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "min": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
	u, ok := units[m[2]]
	if !ok {
		return 0, false
	}
	return time.Duration(v * float64(u)), true
}
