package snapshot

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// intervalOf encodes per-type histograms (all samples committed) as one interval.
func intervalOf(t testing.TB, index int, start time.Time, hists map[Transaction]*hdr.Histogram) Interval {
	t.Helper()
	iv := Interval{Index: index, Start: start, Seconds: 10, Transactions: map[Transaction]TransactionCounts{}}
	for tx, h := range hists {
		if h.TotalCount() == 0 {
			continue
		}
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		iv.Transactions[tx] = TransactionCounts{Histogram: enc, Commits: h.TotalCount()}
	}
	return iv
}

// TestMergeIntervalsEqualsOneHistogramOfAllSamples is the property behind the operator's series:
// for random pods, intervals and samples (pods missing some intervals, delivering them in any
// order), every merged interval reads the same percentiles, count and max as one histogram fed
// every sample of that interval of every pod.
func TestMergeIntervalsEqualsOneHistogramOfAllSamples(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for trial := range 40 {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		pods, intervals := 1+rng.IntN(6), 1+rng.IntN(12)
		all := make([]map[Transaction]*hdr.Histogram, intervals)
		for i := range all {
			all[i] = map[Transaction]*hdr.Histogram{}
			for _, tx := range Transactions {
				all[i][tx] = NewHistogram()
			}
		}
		var series []*Intervals
		for range pods {
			s := &Intervals{LengthSeconds: 10}
			for i := range intervals {
				if rng.IntN(5) == 0 {
					continue // this pod delivered nothing for i (yet)
				}
				hists := map[Transaction]*hdr.Histogram{}
				for _, tx := range Transactions {
					h := NewHistogram()
					model := realisticLatencies[tx]
					model.median *= time.Duration(1 + i%3) // latency rising and falling over time
					for range rng.IntN(400) {
						v := model.draw(rng)
						_ = h.RecordValue(v)
						_ = all[i][tx].RecordValue(v)
					}
					hists[tx] = h
				}
				s.Items = append(s.Items, intervalOf(t, i, t0.Add(time.Duration(i)*10*time.Second), hists))
			}
			rng.Shuffle(len(s.Items), func(a, b int) { s.Items[a], s.Items[b] = s.Items[b], s.Items[a] })
			series = append(series, s)
		}
		merged, err := MergeIntervals(series)
		if err != nil {
			t.Fatal(err)
		}
		for k, m := range merged {
			if k > 0 && merged[k-1].Index >= m.Index {
				t.Fatalf("trial %d: merged intervals not sorted: %d then %d", trial, merged[k-1].Index, m.Index)
			}
			for _, tx := range Transactions {
				got, want := m.Transactions[tx].Histogram, all[m.Index][tx]
				if got.TotalCount() != want.TotalCount() || got.TotalCount() != m.Transactions[tx].Commits || got.Max() != want.Max() {
					t.Fatalf("trial %d interval %d %s: count %d (commits %d) max %d, want %d max %d", trial, m.Index, tx,
						got.TotalCount(), m.Transactions[tx].Commits, got.Max(), want.TotalCount(), want.Max())
				}
				for _, q := range []float64{50, 90, 95, 99, 99.9} {
					if a, b := got.ValueAtQuantile(q), want.ValueAtQuantile(q); a != b {
						t.Fatalf("trial %d interval %d %s p%g: merged %d, one histogram of all samples %d", trial, m.Index, tx, q, a, b)
					}
				}
			}
		}
	}
}

func TestMergeIntervalsRejects(t *testing.T) {
	t0 := time.Now()
	h := NewHistogram()
	_ = h.RecordValue(1000)
	iv := intervalOf(t, 0, t0, map[Transaction]*hdr.Histogram{Payment: h})
	tel := &Telemetry{Engine: "postgres"}
	withTel := iv
	withTel.Telemetry = tel
	badCount := intervalOf(t, 1, t0, map[Transaction]*hdr.Histogram{Payment: h})
	c := badCount.Transactions[Payment]
	c.Commits = 5
	badCount.Transactions[Payment] = c
	for _, tc := range []struct {
		name   string
		series []*Intervals
		want   string
	}{
		{"lengths differ", []*Intervals{{LengthSeconds: 10, Items: []Interval{iv}}, {LengthSeconds: 5}}, "one interval length"},
		{"index twice in a pod", []*Intervals{{LengthSeconds: 10, Items: []Interval{iv, iv}}}, "index 0 twice"},
		{"telemetry from two pods", []*Intervals{{LengthSeconds: 10, Items: []Interval{withTel}}, {LengthSeconds: 10, Items: []Interval{withTel}}}, "--telemetry"},
		{"histogram and counters disagree", []*Intervals{{LengthSeconds: 10, Items: []Interval{badCount}}}, "histogram holds 1 samples but commits+rollbacks = 5"},
	} {
		if _, err := MergeIntervals(tc.series); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// Telemetry from one pod, client signals summed, re-encoded losslessly.
	other := iv
	other.Client = &ClientSignals{LateStarts: 2, PoolWaits: 3}
	merged, err := MergeIntervals([]*Intervals{{LengthSeconds: 10, Items: []Interval{withTel}}, {LengthSeconds: 10, Items: []Interval{other}}})
	if err != nil {
		t.Fatal(err)
	}
	m := merged[0]
	if m.Pods != 2 || m.Telemetry != tel || m.Client.LateStarts != 2 || m.Transactions[Payment].Commits != 2 {
		t.Fatalf("merged %+v", m)
	}
	enc, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := MergeIntervals([]*Intervals{{LengthSeconds: 10, Items: []Interval{enc}}})
	if err != nil || back[0].Transactions[Payment].Histogram.TotalCount() != 2 {
		t.Fatalf("re-encoded interval does not merge back: %v", err)
	}
}

func TestIntervalsValidate(t *testing.T) {
	ok := Intervals{LengthSeconds: 10, Sealed: 3, Released: 1, Items: []Interval{{Index: 1}, {Index: 2}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Intervals)
		want   string
	}{
		{"no length", func(s *Intervals) { s.LengthSeconds = 0 }, "lengthSeconds"},
		{"released beyond sealed", func(s *Intervals) { s.Released = 4 }, "inconsistent"},
		{"descending", func(s *Intervals) { s.Items[0].Index, s.Items[1].Index = 2, 1 }, "ascending"},
		{"not sealed", func(s *Intervals) { s.Items[1].Index = 3 }, "not sealed"},
		{"negative counter", func(s *Intervals) {
			s.Items[0].Transactions = map[Transaction]TransactionCounts{Payment: {Commits: -1}}
		}, "counters must be >= 0"},
		{"unknown type", func(s *Intervals) {
			s.Items[0].Unmeasured = map[Transaction]TransactionCounts{"Foo": {}}
		}, "unknown transaction"},
	} {
		s := ok
		s.Items = append([]Interval(nil), ok.Items...)
		tc.mutate(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestIncrementalReadOverHTTP: the handler passes intervalsAfter to the client process, which
// hands over what the reader has; an advancing reader sees every interval exactly once, a plain
// GET (what readers before the time series send) gets no items, and a malformed N is a 400.
func TestIncrementalReadOverHTTP(t *testing.T) {
	base := fixtureSnapshot(t)
	store := &Intervals{LengthSeconds: 1}
	control := Control{
		Snapshot: func() (*Snapshot, error) {
			s := *base
			s.Intervals = store.After(math.MaxInt)
			return &s, nil
		},
		SnapshotAfter: func(after int) (*Snapshot, error) {
			kept := store.Items[:0:0]
			for _, iv := range store.Items {
				if iv.Index > after {
					kept = append(kept, iv)
				}
			}
			store.Items, store.Released = kept, max(store.Released, min(after+1, store.Sealed))
			s := *base
			s.Intervals = store.After(after)
			return &s, nil
		},
	}
	srv := httptest.NewServer(NewHandler(control))
	defer srv.Close()
	ctx := context.Background()
	seal := func(n int) {
		for range n {
			store.Items = append(store.Items, Interval{Index: store.Sealed})
			store.Sealed++
		}
	}
	seen := map[int]int{}
	after := -1
	for _, n := range []int{2, 0, 3, 1} {
		seal(n)
		s, err := FetchIntervalsAfter(ctx, nil, srv.URL, after)
		if err != nil {
			t.Fatal(err)
		}
		for _, iv := range s.Intervals.Items {
			seen[iv.Index]++
			after = iv.Index
		}
	}
	for i := range 6 {
		if seen[i] != 1 {
			t.Errorf("interval %d seen %d times", i, seen[i])
		}
	}
	plain, err := Fetch(ctx, nil, srv.URL)
	if err != nil || plain.Intervals == nil || len(plain.Intervals.Items) != 0 || plain.Intervals.Sealed != 6 {
		t.Fatalf("plain GET: %v %+v", err, plain.Intervals)
	}
	resp, err := http.Get(srv.URL + PathSnapshot + "?intervalsAfter=x")
	if err != nil {
		t.Fatal(err)
	}
	var body errorBody
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body.Error, QueryIntervalsAfter) {
		t.Fatalf("malformed N: %d %q", resp.StatusCode, body.Error)
	}
}

// TestHandlerFiltersWithoutSnapshotAfter: a Control without SnapshotAfter still answers the
// incremental read by filtering (nothing is released).
func TestHandlerFiltersWithoutSnapshotAfter(t *testing.T) {
	s := fixtureSnapshot(t)
	s.Intervals = &Intervals{LengthSeconds: 1, Sealed: 3, Items: []Interval{{Index: 0}, {Index: 1}, {Index: 2}}}
	srv := httptest.NewServer(NewHandler(Control{Snapshot: func() (*Snapshot, error) { return s, nil }}))
	defer srv.Close()
	got, err := FetchIntervalsAfter(context.Background(), nil, srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Intervals.Items) != 2 || got.Intervals.Items[0].Index != 1 || len(s.Intervals.Items) != 3 {
		t.Fatalf("got %+v", got.Intervals.Items)
	}
}

// TestSnapshotWithoutIntervalsStillParses: a document of a client before the time series (no
// "intervals") is version 1 and reads as before.
func TestSnapshotWithoutIntervalsStillParses(t *testing.T) {
	s := fixtureSnapshot(t)
	s.Intervals = nil
	b, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"intervals"`) {
		t.Fatalf("absent series is written: %s", b)
	}
	back, err := Parse(b)
	if err != nil || back.Intervals != nil {
		t.Fatalf("parse: %v, intervals %+v", err, back.Intervals)
	}
}

func TestCompact(t *testing.T) {
	t0 := time.Now()
	h := NewHistogram()
	for v := int64(1); v <= 100; v++ {
		_ = h.RecordValue(v * 1000)
	}
	iv := intervalOf(t, 3, t0, map[Transaction]*hdr.Histogram{NewOrder: h})
	wal := 5e6
	iv.Telemetry = &Telemetry{Standbys: []Standby{{Name: "s1", ReplayLagSeconds: 2.5}}, WALBytesPerSecond: &wal,
		Checkpoints: &Checkpoints{Started: 1}, Sessions: &Sessions{SyncRep: 7}}
	iv.Client = &ClientSignals{LateStarts: 4}
	empty := Interval{Index: 4, Start: t0.Add(10 * time.Second), Seconds: 10}
	merged, err := MergeIntervals([]*Intervals{{LengthSeconds: 10, Items: []Interval{iv, empty}}})
	if err != nil {
		t.Fatal(err)
	}
	c := Compact(merged, 10*time.Second)
	no := c.Types[NewOrder]
	if c.Index[0] != 3 || no.Completed[0] != 100 || no.P50[0] != sig3(h.ValueAtQuantile(50)) || no.P99[0] != sig3(h.ValueAtQuantile(99)) || no.Max[0] != sig3(h.Max()) {
		t.Fatalf("columns %+v", no)
	}
	if c.ReplayLagMillis["s1"][0] != 2500 || c.ReplayLagMillis["s1"][1] != -1 || c.WALBytesPerSecond[0] != 5e6 ||
		c.Checkpoints[0] != 1 || c.SyncRepWaiters[0] != 7 || c.LateStarts[0] != 4 || no.Completed[1] != 0 {
		t.Fatalf("signals %+v", c)
	}
}

func fixtureSnapshot(t *testing.T) *Snapshot { return newFakeRun(t).snapshot }
