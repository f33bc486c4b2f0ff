package snapshot

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// WarehouseRange is an inclusive range of home warehouses driven by one pod.
type WarehouseRange struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Pod  string `json:"pod"`
}

// PodFailure is a pod whose snapshot reports the failed phase.
type PodFailure struct {
	Pod     string `json:"pod"`
	Message string `json:"message"`
}

// MergedTransaction is one transaction type summed over pods.
type MergedTransaction struct {
	Histogram *hdr.Histogram // response times of completed transactions, µs
	Commits   int64
	Rollbacks int64
	Errors    int64
	Retries   int64
}

// Completed counts committed plus business-rolled-back transactions.
func (t *MergedTransaction) Completed() int64 { return t.Commits + t.Rollbacks }

// Merged is the exact merge of the snapshots of every pod of one step.
type Merged struct {
	Pods             int
	Engine           string
	Wait             WaitMode
	Warehouses       int // loaded
	ActiveWarehouses int // of the step; efficiency is computed against it
	Terminals        int // summed over pods
	// Ranges are the pods' warehouse ranges sorted by From; DrivenWarehouses is
	// their total size. Fewer driven than active warehouses means pods are
	// missing from the merge (their throughput is then missing too).
	Ranges           []WarehouseRange
	DrivenWarehouses int

	// Phase is "failed" if any pod failed, otherwise the least advanced pod's phase.
	Phase    Phase
	Failures []PodFailure

	// Measured is the longest measured interval of any pod. Pods are started
	// together and measure the same wall-clock interval, so per-pod intervals
	// differ only by start-up skew; counts are summed over pods and divided by
	// this one interval (as CockroachDB's MergeResults takes the max elapsed).
	// MeasurementStart is the earliest pod start and MeasurementStartSkew the
	// spread between the earliest and latest start, for the report.
	Measured             time.Duration
	MeasurementStart     time.Time
	MeasurementStartSkew time.Duration
	Updated              time.Time // latest update of any pod

	Transactions map[Transaction]*MergedTransaction // all five types are present
	Audit        Audit
	Constants    Constants
	// Versions lists each distinct version string seen, sorted.
	ClientVersions       []string
	K6Versions           []string
	EngineServerVersions []string
}

// Merge merges the snapshots of one step exactly: histograms bucket by bucket,
// counters summed. It rejects snapshots that cannot belong to one step:
// different engines, wait modes, loaded or active warehouse counts or NURand
// constants, duplicate pods, and overlapping warehouse ranges.
func Merge(snapshots []*Snapshot) (*Merged, error) {
	if len(snapshots) == 0 {
		return nil, errors.New("merge: no snapshots")
	}
	first := snapshots[0]
	m := &Merged{
		Engine:           first.Identity.Engine,
		Wait:             first.Identity.Wait,
		Warehouses:       first.Identity.Warehouses,
		ActiveWarehouses: first.Identity.ActiveWarehouses,
		Constants:        first.Constants,
		Transactions:     make(map[Transaction]*MergedTransaction, len(Transactions)),
	}
	for _, t := range Transactions {
		m.Transactions[t] = &MergedTransaction{}
	}
	seenPods := make(map[string]bool, len(snapshots))
	leastPhase := PhaseDone
	var latestStart time.Time
	for i, s := range snapshots {
		if s == nil {
			return nil, fmt.Errorf("merge: snapshot %d is nil", i)
		}
		if err := s.Validate(); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		id := s.Identity
		if seenPods[id.Pod] {
			return nil, fmt.Errorf("merge: pod %q appears twice", id.Pod)
		}
		seenPods[id.Pod] = true
		if err := checkSameStep(m, first.Identity.Pod, s); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		m.Pods++
		m.Terminals += id.Terminals
		m.Ranges = append(m.Ranges, WarehouseRange{From: id.WarehouseFrom, To: id.WarehouseTo, Pod: id.Pod})
		m.DrivenWarehouses += id.WarehouseTo - id.WarehouseFrom + 1

		if s.Phase == PhaseFailed {
			m.Failures = append(m.Failures, PodFailure{Pod: id.Pod, Message: RedactCredentials(s.Message)})
		} else if phaseOrder[s.Phase] < phaseOrder[leastPhase] {
			leastPhase = s.Phase
		}

		measured := time.Duration(s.Times.MeasuredSeconds * float64(time.Second))
		m.Measured = max(m.Measured, measured)
		if start := s.Times.MeasurementStart; !start.IsZero() {
			if m.MeasurementStart.IsZero() || start.Before(m.MeasurementStart) {
				m.MeasurementStart = start
			}
			if start.After(latestStart) {
				latestStart = start
			}
		}
		if s.Times.Updated.After(m.Updated) {
			m.Updated = s.Times.Updated
		}

		for t, c := range s.Transactions {
			mt := m.Transactions[t]
			mt.Commits += c.Commits
			mt.Rollbacks += c.Rollbacks
			mt.Errors += c.Errors
			mt.Retries += c.Retries
		}
		m.Audit.Add(s.Audit)
		m.ClientVersions = addDistinct(m.ClientVersions, s.Versions.Client)
		m.K6Versions = addDistinct(m.K6Versions, s.Versions.K6)
		m.EngineServerVersions = addDistinct(m.EngineServerVersions, s.Versions.EngineServer)
	}
	if err := mergeHistograms(m, snapshots); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	m.Phase = leastPhase
	if len(m.Failures) > 0 {
		m.Phase = PhaseFailed
	}
	if !m.MeasurementStart.IsZero() {
		m.MeasurementStartSkew = latestStart.Sub(m.MeasurementStart)
	}
	if err := sortAndCheckRanges(m.Ranges); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if m.DrivenWarehouses > m.ActiveWarehouses {
		return nil, fmt.Errorf("merge: pods drive %d warehouses but identity.activeWarehouses is %d", m.DrivenWarehouses, m.ActiveWarehouses)
	}
	return m, nil
}

func checkSameStep(m *Merged, firstPod string, s *Snapshot) error {
	id := s.Identity
	differs := func(field string, want, got any) error {
		return fmt.Errorf("pod %q has %s %v but pod %q has %v: snapshots are not from one step", id.Pod, field, got, firstPod, want)
	}
	switch {
	case id.Engine != m.Engine:
		return differs("identity.engine", m.Engine, id.Engine)
	case id.Wait != m.Wait:
		return differs("identity.wait", m.Wait, id.Wait)
	case id.Warehouses != m.Warehouses:
		return differs("identity.warehouses", m.Warehouses, id.Warehouses)
	case id.ActiveWarehouses != m.ActiveWarehouses:
		return differs("identity.activeWarehouses", m.ActiveWarehouses, id.ActiveWarehouses)
	case s.Constants != m.Constants:
		// Clause 2.1.6: every terminal must use the same C values.
		return differs("constants", m.Constants, s.Constants)
	}
	return nil
}

// mergeHistograms decodes every pod's histograms into per-type counts,
// spread over the available CPUs, and checks each against its counters.
func mergeHistograms(m *Merged, snapshots []*Snapshot) error {
	workers := min(runtime.GOMAXPROCS(0), len(snapshots))
	podErrors := make([]error, len(snapshots))
	perWorker := make([]map[Transaction]*counts, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		acc := make(map[Transaction]*counts, len(Transactions))
		for _, t := range Transactions {
			acc[t] = newCounts()
		}
		perWorker[w] = acc
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(snapshots) {
					return
				}
				podErrors[i] = addPodHistograms(acc, snapshots[i])
			}
		})
	}
	wg.Wait()
	// Report the first failing pod in input order, whatever the scheduling.
	if err := errors.Join(podErrors...); err != nil {
		for i, e := range podErrors {
			if e != nil {
				return fmt.Errorf("pod %q %w", snapshots[i].Identity.Pod, e)
			}
		}
	}
	for _, t := range Transactions {
		total := perWorker[0][t]
		for _, acc := range perWorker[1:] {
			if err := total.add(acc[t]); err != nil {
				return fmt.Errorf("transactions.%s: %w", t, err)
			}
		}
		m.Transactions[t].Histogram = total.histogram()
	}
	return nil
}

func addPodHistograms(acc map[Transaction]*counts, s *Snapshot) error {
	for t, c := range s.Transactions {
		samples, err := acc[t].addEncoded(c.Histogram)
		if err != nil {
			return fmt.Errorf("transactions.%s.histogram: %w", t, err)
		}
		if completed := c.Commits + c.Rollbacks; samples != completed {
			return fmt.Errorf("transactions.%s: histogram holds %d samples but commits+rollbacks = %d: histogram and counters must be taken together", t, samples, completed)
		}
	}
	return nil
}

var (
	urlUserinfo   = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@`)
	passwordParam = regexp.MustCompile(`(?i)(password|passwd|pwd|token|secret)(\s*[=:]\s*)("[^"]*"|'[^']*'|\S+)`)
)

// RedactCredentials removes what a driver error may carry of a connection
// string (user:password@ in URLs, password=… parameters) before a pod's
// message reaches status, events or logs.
func RedactCredentials(message string) string {
	message = urlUserinfo.ReplaceAllString(message, "${1}***@")
	return passwordParam.ReplaceAllString(message, "${1}${2}***")
}

// Add adds another's audit counters to a's.
func (a *Audit) Add(other Audit) {
	for i, n := range other.OrderLineCounts {
		a.OrderLineCounts[i] += n
	}
	a.RemoteOrderLines += other.RemoteOrderLines
	a.RemotePayments += other.RemotePayments
	a.PaymentsByLastName += other.PaymentsByLastName
	a.OrderStatusByLastName += other.OrderStatusByLastName
	a.DeliveredDistricts += other.DeliveredDistricts
	a.SkippedDeliveryDistricts += other.SkippedDeliveryDistricts
}

func addDistinct(list []string, v string) []string {
	if v == "" || slices.Contains(list, v) {
		return list
	}
	list = append(list, v)
	slices.Sort(list)
	return list
}

// sortAndCheckRanges sorts ranges by From and rejects any overlap: two pods
// driving the same warehouse would double its terminals.
func sortAndCheckRanges(ranges []WarehouseRange) error {
	sort.Slice(ranges, func(i, j int) bool { return ranges[i].From < ranges[j].From })
	for i := 1; i < len(ranges); i++ {
		prev, cur := ranges[i-1], ranges[i]
		if cur.From <= prev.To {
			return fmt.Errorf("warehouse ranges overlap: pod %q drives %d..%d and pod %q drives %d..%d",
				prev.Pod, prev.From, prev.To, cur.Pod, cur.From, cur.To)
		}
	}
	return nil
}

// EncodeHistograms returns the merged histograms in the contract's encoding,
// for reports that keep the full distributions.
func (m *Merged) EncodeHistograms() (map[Transaction]string, error) {
	out := make(map[Transaction]string, len(Transactions))
	for _, t := range Transactions {
		encoded, err := EncodeHistogram(m.Transactions[t].Histogram)
		if err != nil {
			return nil, fmt.Errorf("transactions.%s: %w", t, err)
		}
		out[t] = encoded
	}
	return out, nil
}
