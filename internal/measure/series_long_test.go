package measure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/chunked"
	"github.com/tpcc-operator/tpcc-operator/internal/sla"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// longPhase simulates a step at 1-second intervals as the operator collects it: two client pods, the
// first sampling PostgreSQL with two synchronous standbys, polled every pollSeconds through
// stepSeries.collect (merge, compact, bound), with five pods' resources sampled every 15 s. A
// fault (fault ≥ 0, in seconds from the origin) empties the writing transactions of 8 intervals
// and puts errors in them; the fault's window is opened as OpenFaultWindow does, before the
// intervals after it are collected. Intervals are drawn from a pool of pre-encoded variants so
// that the figures are those of collecting, not of generating.
type longPhase struct {
	seconds, pollSeconds, fault int
	// each is called after every poll with the seconds collected so far.
	each func(seconds int, st *StepSeries)
}

var phaseOrigin = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// phaseVariants is prime and large, so the stored series does not compress better than a real one.
const phaseVariants = 251

// phaseCounts are what the simulation fed, per type: completed (commits) and errors.
type phaseCounts struct {
	completed, errors map[snapshot.Transaction]int64
}

func (p longPhase) run(tb testing.TB) (*StepSeries, phaseCounts) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	type variant struct {
		tx       map[snapshot.Transaction]snapshot.TransactionCounts
		count    int64
		lag, wal float64
	}
	variants := [2][phaseVariants]variant{}
	for pod := range 2 {
		for v := range phaseVariants {
			wave := 1 + 0.5*math.Sin(float64(v)/10)
			tx := map[snapshot.Transaction]snapshot.TransactionCounts{}
			n := int64(20 + v%7)
			for _, t := range snapshot.Transactions {
				h := snapshot.NewHistogram()
				for range n {
					snapshot.RecordLatency(h, time.Duration(float64(20*time.Millisecond)*wave*math.Exp(0.5*rng.NormFloat64())))
				}
				enc, err := snapshot.EncodeHistogram(h)
				if err != nil {
					tb.Fatal(err)
				}
				tx[t] = snapshot.TransactionCounts{Histogram: enc, Commits: n}
			}
			variants[pod][v] = variant{tx: tx, count: n, lag: 0.001 + rng.Float64()/100, wal: 8e6 * wave * (1 + rng.Float64()/10)}
		}
	}
	readOnly := map[snapshot.Transaction]snapshot.TransactionCounts{}
	for _, t := range []snapshot.Transaction{snapshot.OrderStatus, snapshot.StockLevel} {
		readOnly[t] = variants[0][0].tx[t]
	}
	readOnly[snapshot.NewOrder] = snapshot.TransactionCounts{Errors: 3}
	readOnly[snapshot.Payment] = snapshot.TransactionCounts{Errors: 2}
	fed := phaseCounts{completed: map[snapshot.Transaction]int64{}, errors: map[snapshot.Transaction]int64{}}
	interval := func(pod, i int) snapshot.Interval {
		// The variant depends on the distance to the fault, so the same stretch around a fault
		// reads the same in a short phase and a long one.
		v := variants[pod][((i-p.fault)%phaseVariants+phaseVariants)%phaseVariants]
		w := variants[1][((i-p.fault)%phaseVariants+phaseVariants)%phaseVariants]
		iv := snapshot.Interval{Index: i, Start: phaseOrigin.Add(time.Duration(i) * time.Second), Seconds: 1, Transactions: v.tx,
			Client: &snapshot.ClientSignals{PoolAcquires: 5 * v.count, LateStarts: int64(i % 3)}}
		if p.fault >= 0 && i >= p.fault && i < p.fault+8 {
			iv.Transactions = readOnly
		}
		for t, c := range iv.Transactions {
			fed.completed[t] += c.Commits + c.Rollbacks
			fed.errors[t] += c.Errors
		}
		if pod == 0 {
			wal, commits := w.wal, 40*float64(v.count)
			lag := w.lag
			iv.Telemetry = &snapshot.Telemetry{Engine: "postgres", WALBytesPerSecond: &wal, CommitsPerSecond: &commits,
				Standbys: []snapshot.Standby{{Name: "s1", State: "streaming", SyncState: "quorum", ReplayLagSeconds: lag},
					{Name: "s2", State: "streaming", SyncState: "quorum", ReplayLagSeconds: lag * 2}},
				Checkpoints: &snapshot.Checkpoints{Started: int64(min(1, i%300))}, Sessions: &snapshot.Sessions{SyncRep: i % 7}}
		}
		return iv
	}
	st := &StepSeries{Version: SeriesVersion}
	for sealed := p.pollSeconds; sealed <= p.seconds; sealed += p.pollSeconds {
		pods := make([]*snapshot.Intervals, 2)
		for pod := range pods {
			s := &snapshot.Intervals{Origin: phaseOrigin, LengthSeconds: 1, Sealed: sealed}
			for i := st.Collected; i < sealed; i++ {
				s.Items = append(s.Items, interval(pod, i))
			}
			pods[pod] = s
		}
		if p.fault >= 0 && st.AfterFault == nil && sealed > p.fault {
			st.AfterFault = &FaultWindow{From: p.fault, To: p.fault + 60} // as OpenFaultWindow, before collecting
		}
		if _, err := st.Collect(pods); err != nil {
			tb.Fatal(err)
		}
		if sealed%15 < p.pollSeconds {
			at := phaseOrigin.Add(time.Duration(sealed) * time.Second)
			for k, pod := range []string{"pg-db-1", "pg-db-2", "pg-db-3", "pg-step-0-0", "pg-step-0-1"} {
				st.AddResources(pod, RoleDatabase, 2000, at.Add(-time.Second), 1000+int64(k)*100+rng.Int64N(500), 2<<30+rng.Int64N(1<<28))
			}
		}
		if p.each != nil {
			p.each(sealed, st)
		}
	}
	return st, fed
}

// A fault anywhere in a 12-hour phase at 1 s is measured exactly as the same fault in a
// 20-minute one: the minute before it and five after stay at 1 s however much of the phase was
// downsampled around them. Downsampling keeps the phase's totals exact. Two places: early (the
// fault's minutes downsampled around for 11 hours after it) and late (recent when the phase ends);
// each simulates the whole 12 hours, ~25 s of CPU.
func TestLongStepFaultMeasuredAsShort(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 12 hours of collection")
	}
	t.Parallel() // pure and CPU-bound: it overlaps the envtest cases, which mostly wait
	measureFault := func(st *StepSeries, fault int) sla.FaultFigures {
		t.Helper()
		at := phaseOrigin.Add(time.Duration(fault)*time.Second + 300*time.Millisecond)
		f, err := sla.MeasureFault(st.Series, st.Origin, phaseOrigin.Add(30*time.Second), at)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	short, _ := longPhase{seconds: 1200, pollSeconds: 10, fault: 600}.run(t)
	want := measureFault(short, 600)
	if want.Unavailability != 8*time.Second || !want.Recovered || want.Errors[snapshot.NewOrder] != 48 || want.BaselineNewOrdersPerSecond == 0 {
		t.Fatalf("the short phase's fault: %+v", want)
	}
	for _, tc := range []struct {
		name  string
		fault int
	}{{"fault after 30 minutes", 1800}, {"fault 20 minutes before the end", 12*3600 - 1200}} {
		t.Run(tc.name, func(t *testing.T) {
			st, fed := longPhase{seconds: 12 * 3600, pollSeconds: 10, fault: tc.fault}.run(t)
			if !st.Series.Downsampled() || len(st.Series.Index) > snapshot.MaxSeriesEntries {
				t.Fatalf("%d entries, downsampled %v: want a bounded, downsampled series", len(st.Series.Index), st.Series.Downsampled())
			}
			got := measureFault(st, tc.fault)
			got.AfterFrom, got.AfterTo = got.AfterFrom-tc.fault+600, got.AfterTo-tc.fault+600
			got.UnavailableFrom = got.UnavailableFrom.Add(time.Duration(600-tc.fault) * time.Second)
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
				t.Errorf("measured %+v\nwant (short phase) %+v", got, want)
			}
			for i, idx := range st.Series.Index {
				if idx >= tc.fault-61 && idx < tc.fault+301 && st.Series.SpanOf(i) != 1 {
					t.Fatalf("interval %d near the fault at %d is in an entry of %d", idx, tc.fault, st.Series.SpanOf(i))
				}
			}
			var delivered int64
			for i := range st.Series.Index {
				delivered += st.Series.Delivered(i)
			}
			if delivered != 12*3600 || st.Missing != 0 {
				t.Errorf("delivered %d intervals, missing %d: want 43200, 0", delivered, st.Missing)
			}
			for _, tx := range snapshot.Transactions {
				var completed, errs int64
				for i := range st.Series.Index {
					completed += st.Series.Types[tx].Completed[i]
					errs += st.Series.Types[tx].Errors[i]
				}
				if completed != fed.completed[tx] || errs != fed.errors[tx] {
					t.Errorf("%s: series %d completed, %d errors; fed %d, %d", tx, completed, errs, fed.completed[tx], fed.errors[tx])
				}
			}
			e := sla.ReplicationEvidenceOfSeries(st.Series, nil, 2, true, "")
			if e.Samples != 12*3600 || e.Failed != 0 || e.NoSyncStreaming != 0 || len(e.Absent) != 0 || e.MaxStandbys != 2 {
				t.Errorf("replication evidence %+v: want 43200 read samples of two streaming standbys", e)
			}
		})
	}
}

// BenchmarkLongStepSeries simulates a 12-hour step at 1-second intervals (two client pods, one
// sampling two standbys, polled every 5 s) and prints, after 1, 3, 6 and 12 hours, the heap in
// use after a GC, the series' entries, its stored size (gzipped JSON as saveSeries writes it) and
// ConfigMap parts, and the mean time of one poll's collect and encode over the last hour:
//
//	go test ./internal/measure/ -run XXX -bench LongStepSeries -benchtime 1x
func BenchmarkLongStepSeries(b *testing.B) {
	for b.Loop() {
		var spent time.Duration
		polls := 0
		var heap0 uint64
		p := longPhase{seconds: 12 * 3600, pollSeconds: 5, fault: -1}
		p.each = func(seconds int, st *StepSeries) {
			start := time.Now()
			body, err := GzipJSON(st)
			if err != nil {
				b.Fatal(err)
			}
			spent += time.Since(start)
			polls++
			switch seconds {
			case 5:
				heap0 = heapInUse()
			case 3600, 3 * 3600, 6 * 3600, 12 * 3600:
				heap := heapInUse()
				b.Logf("%2dh: heap in use %6.1f MiB (%.1f at the first poll), %d entries (oldest spans %d s), stored %d KiB gzipped in %d ConfigMap(s), collect+encode %.2f ms per poll over the last hour",
					seconds/3600, float64(heap)/(1<<20), float64(heap0)/(1<<20), len(st.Series.Index), st.Series.SpanOf(0), len(body)>>10,
					len(chunked.Split(body, chunked.MaxBytes)), float64(spent.Microseconds())/1000/float64(polls))
				b.ReportMetric(float64(heap)/(1<<20), fmt.Sprintf("heap-MiB-%dh", seconds/3600))
				b.ReportMetric(float64(len(body))/1024, fmt.Sprintf("stored-KiB-%dh", seconds/3600))
				spent, polls = 0, 0
			}
		}
		p.runTimed(b, &spent)
	}
}

// runTimed runs the phase, adding each poll's collect time to spent.
func (p longPhase) runTimed(tb testing.TB, spent *time.Duration) {
	each := p.each
	last := time.Now()
	p.each = func(seconds int, st *StepSeries) {
		*spent += time.Since(last) // collect (and building the poll's pod documents)
		each(seconds, st)
		last = time.Now()
	}
	p.run(tb)
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
