package snapshot

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// MergedInterval is one interval index merged over the pods of a step.
type MergedInterval struct {
	Index   int
	Start   time.Time // earliest start of any pod's interval of this index
	Seconds float64   // longest interval of any pod (pods are released together; starts differ by skew only)
	Pods    int       // pods that delivered this index
	// Transactions and Unmeasured hold all five types, histograms summed bucket by bucket.
	Transactions map[Transaction]*MergedTransaction
	Unmeasured   map[Transaction]*MergedTransaction
	Client       ClientSignals
	Telemetry    *Telemetry // from the pod that sampled the database, nil when none did
}

// MergeIntervals merges the interval series of the pods of one step exactly: for each index,
// histograms are summed bucket by bucket (the merged p90 of an interval is the p90 of every
// response of every pod in it) and counters are summed. Each series is the items one pod has
// delivered, in any order of arrival but each index at most once per pod. All series must share
// one interval length. Telemetry comes from the one pod that samples it; two pods carrying
// telemetry for the same index is an error (only one pod of a step may run with --telemetry).
// The result is sorted by index; an index no pod delivered is absent.
func MergeIntervals(series []*Intervals) ([]MergedInterval, error) {
	var length float64
	type acc struct {
		m          *MergedInterval
		tx, unmeas map[Transaction]*counts
	}
	byIndex := map[int]*acc{}
	for p, s := range series {
		if s == nil {
			continue
		}
		if length == 0 {
			length = s.LengthSeconds
		} else if s.LengthSeconds != length {
			return nil, fmt.Errorf("merge intervals: series %d has intervals of %gs, series before it %gs: one step has one interval length", p, s.LengthSeconds, length)
		}
		seen := map[int]bool{}
		for _, iv := range s.Items {
			if seen[iv.Index] {
				return nil, fmt.Errorf("merge intervals: series %d holds index %d twice", p, iv.Index)
			}
			seen[iv.Index] = true
			a := byIndex[iv.Index]
			if a == nil {
				a = &acc{m: &MergedInterval{Index: iv.Index, Start: iv.Start}, tx: newCountsByType(), unmeas: newCountsByType()}
				a.m.Transactions, a.m.Unmeasured = newMergedByType(), newMergedByType()
				byIndex[iv.Index] = a
			}
			m := a.m
			m.Pods++
			if iv.Start.Before(m.Start) {
				m.Start = iv.Start
			}
			m.Seconds = math.Max(m.Seconds, iv.Seconds)
			if err := addGroup(a.tx, m.Transactions, iv.Transactions); err != nil {
				return nil, fmt.Errorf("merge intervals: series %d, index %d: %w", p, iv.Index, err)
			}
			if err := addGroup(a.unmeas, m.Unmeasured, iv.Unmeasured); err != nil {
				return nil, fmt.Errorf("merge intervals: series %d, index %d, unmeasured: %w", p, iv.Index, err)
			}
			if iv.Client != nil {
				m.Client.Add(*iv.Client)
			}
			if iv.Telemetry != nil {
				if m.Telemetry != nil {
					return nil, fmt.Errorf("merge intervals: index %d carries database telemetry from two pods; run only one pod with --telemetry", iv.Index)
				}
				m.Telemetry = iv.Telemetry
			}
		}
	}
	out := make([]MergedInterval, 0, len(byIndex))
	for _, a := range byIndex {
		for _, t := range Transactions {
			a.m.Transactions[t].Histogram = a.tx[t].histogram()
			a.m.Unmeasured[t].Histogram = a.unmeas[t].histogram()
		}
		out = append(out, *a.m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

func newCountsByType() map[Transaction]*counts {
	m := make(map[Transaction]*counts, len(Transactions))
	for _, t := range Transactions {
		m[t] = newCounts()
	}
	return m
}

func newMergedByType() map[Transaction]*MergedTransaction {
	m := make(map[Transaction]*MergedTransaction, len(Transactions))
	for _, t := range Transactions {
		m[t] = &MergedTransaction{}
	}
	return m
}

// addGroup adds one pod's per-type entries, checking each histogram against its counters.
func addGroup(acc map[Transaction]*counts, into map[Transaction]*MergedTransaction, group map[Transaction]TransactionCounts) error {
	if err := validateCounts(group); err != nil {
		return err
	}
	for t, c := range group {
		samples, err := acc[t].addEncoded(c.Histogram)
		if err != nil {
			return fmt.Errorf("transactions.%s.histogram: %w", t, err)
		}
		if completed := c.Commits + c.Rollbacks; samples != completed {
			return fmt.Errorf("transactions.%s: histogram holds %d samples but commits+rollbacks = %d", t, samples, completed)
		}
		mt := into[t]
		mt.Commits += c.Commits
		mt.Rollbacks += c.Rollbacks
		mt.Errors += c.Errors
		mt.Retries += c.Retries
	}
	return nil
}

// Encode returns the merged interval in the wire form (histograms encoded), e.g. for a report
// that keeps full-resolution histograms.
func (m *MergedInterval) Encode() (Interval, error) {
	iv := Interval{Index: m.Index, Start: m.Start, Seconds: m.Seconds, Telemetry: m.Telemetry}
	client := m.Client
	iv.Client = &client
	var err error
	if iv.Transactions, err = encodeGroup(m.Transactions); err != nil {
		return iv, fmt.Errorf("interval %d: %w", m.Index, err)
	}
	if iv.Unmeasured, err = encodeGroup(m.Unmeasured); err != nil {
		return iv, fmt.Errorf("interval %d, unmeasured: %w", m.Index, err)
	}
	return iv, nil
}

func encodeGroup(group map[Transaction]*MergedTransaction) (map[Transaction]TransactionCounts, error) {
	out := map[Transaction]TransactionCounts{}
	for _, t := range Transactions {
		mt := group[t]
		if mt == nil || (mt.Completed() == 0 && mt.Errors == 0 && mt.Retries == 0) {
			continue
		}
		c := TransactionCounts{Commits: mt.Commits, Rollbacks: mt.Rollbacks, Errors: mt.Errors, Retries: mt.Retries}
		if mt.Histogram != nil && mt.Histogram.TotalCount() > 0 {
			enc, err := EncodeHistogram(mt.Histogram)
			if err != nil {
				return nil, fmt.Errorf("transactions.%s: %w", t, err)
			}
			c.Histogram = enc
		}
		out[t] = c
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
