package snapshot

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// pollPod is one client pod of the poll benchmark: its snapshot encoded with and without the
// ledger (Marshal, the encoding the handler serves), served as a current pod serves it — the
// ledger only with ledger=1 — after delay.
type pollPod struct {
	withLedger, withoutLedger []byte
	delay                     time.Duration
	served                    *atomic.Int64 // bytes served, all pods
}

func (p *pollPod) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-r.Context().Done():
			return
		}
	}
	ledger, ok := wantsLedger(r.URL.Query()[QueryLedger])
	if !ok {
		http.Error(w, "bad ledger", http.StatusBadRequest)
		return
	}
	body := p.withoutLedger
	if ledger {
		body = p.withLedger
	}
	p.served.Add(int64(len(body)))
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// pollFixture builds the pods of a step of `warehouses` split over `pods` as a poll in the
// middle of a step sees them: five cumulative histograms of realistic latencies, the one interval
// sealed since the last poll (the incremental read) and the per-district ledger, ten districts
// per home warehouse.
func pollFixture(b *testing.B, pods, warehouses int, served *atomic.Int64) []*pollPod {
	rng := rand.New(rand.NewPCG(3, 4))
	hists := map[Transaction]*hdr.Histogram{}
	for _, tx := range Transactions {
		h := NewHistogram()
		for range 20_000 {
			_ = h.RecordValue(realisticLatencies[tx].draw(rng))
		}
		hists[tx] = h
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	iv := intervalOf(b, 41, start.Add(410*time.Second), hists)
	per := warehouses / pods
	out := make([]*pollPod, pods)
	for i := range pods {
		from := i*per + 1
		s := podFixture{pod: fmt.Sprintf("client-%03d", i), from: from, to: from + per - 1, active: warehouses,
			histograms: hists, measured: 420, start: start}.snapshot(b)
		s.Identity.Warehouses = warehouses
		s.Intervals = &Intervals{Origin: start, LengthSeconds: 10, Sealed: 42, Released: 41, Retention: 1080, Items: []Interval{iv}}
		s.Ledger = make([]LedgerDistrict, 0, per*10)
		for w := from; w < from+per; w++ {
			for d := 1; d <= 10; d++ {
				s.Ledger = append(s.Ledger, LedgerDistrict{WarehouseID: w, DistrictID: d, Acknowledged: 2000 + rng.Int64N(400), Unknown: rng.Int64N(2)})
			}
		}
		with, err := Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		s.Ledger = nil
		without, err := Marshal(s)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = &pollPod{withLedger: with, withoutLedger: without, served: served}
	}
	return out
}

// BenchmarkPoll times one poll pass of a step — FetchAll, the reconciler's read of its pods, over
// real HTTP (httptest servers on loopback) — and reports its p50 and p99, the bytes a pass
// carries and one pod's document with and without the ledger. The pods serve pre-encoded documents, so the figures are the
// operator's side (transfer, parse), not the pods' encoding, which they do each on their own
// cores. Variants: with and without the ledger (a fault step asks for it, every other step not);
// one pod answering after 9 s, within and past the per-pod timeout; every pod answering after
// 20 ms (its encoding and a round trip, which loopback lacks); and the fan-out of 1 (pod by
// pod) beside the default 16.
// Not run by go test without -bench:
//
//	go test ./internal/snapshot/ -run XXX -bench 'Poll/size' -benchtime 30x
//	go test ./internal/snapshot/ -run XXX -bench 'Poll/(fanout|latency|slow)' -benchtime 5x
func BenchmarkPoll(b *testing.B) {
	type variant struct {
		name               string
		pods, warehouses   int
		ledger             bool
		slow, timeout      time.Duration
		latency            time.Duration // every pod's time to answer: its encoding and the network's round trip
		limit, wantErrored int
	}
	var variants []variant
	for _, size := range []struct{ pods, warehouses int }{{36, 18_000}, {256, 18_000}, {36, 100_000}, {256, 100_000}} {
		for _, ledger := range []bool{false, true} {
			variants = append(variants, variant{name: fmt.Sprintf("size/pods=%d/warehouses=%d/ledger=%v", size.pods, size.warehouses, ledger),
				pods: size.pods, warehouses: size.warehouses, ledger: ledger})
		}
	}
	variants = append(variants,
		variant{name: "fanout=1/pods=256/warehouses=100000/ledger=false", pods: 256, warehouses: 100_000, limit: 1},
		variant{name: "latency=20ms/fanout=16/pods=256/warehouses=100000/ledger=false", pods: 256, warehouses: 100_000, latency: 20 * time.Millisecond},
		variant{name: "latency=20ms/fanout=1/pods=256/warehouses=100000/ledger=false", pods: 256, warehouses: 100_000, latency: 20 * time.Millisecond, limit: 1},
		variant{name: "slow=9s/timeout=10s/pods=36/warehouses=18000/ledger=false", pods: 36, warehouses: 18_000, slow: 9 * time.Second},
		variant{name: "slow=9s/timeout=10s/pods=256/warehouses=100000/ledger=false", pods: 256, warehouses: 100_000, slow: 9 * time.Second},
		variant{name: "slow=9s/timeout=2s/pods=256/warehouses=100000/ledger=false", pods: 256, warehouses: 100_000, slow: 9 * time.Second,
			timeout: 2 * time.Second, wantErrored: 1},
	)
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			var served atomic.Int64
			pods := pollFixture(b, v.pods, v.warehouses, &served)
			for _, p := range pods {
				p.delay = v.latency
			}
			if v.slow > 0 {
				pods[v.pods/2].delay = v.slow
			}
			urls := make([]string, len(pods))
			for i, p := range pods {
				srv := httptest.NewServer(p)
				b.Cleanup(srv.Close)
				urls[i] = srv.URL
			}
			// The reconciler's default: a client with a 10 s timeout, each request within its own.
			poll := Poll{Client: &http.Client{Timeout: 10 * time.Second}, Limit: v.limit, Timeout: v.timeout}
			q := Query{IntervalsAfter: 40, Ledger: v.ledger}
			var passes []time.Duration
			served.Store(0)
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				snapshots, errs := FetchAll(b.Context(), urls, q, poll)
				passes = append(passes, time.Since(start))
				errored := 0
				for i, err := range errs {
					if err != nil {
						errored++
						continue
					}
					if got := len(snapshots[i].Ledger) > 0; got != v.ledger {
						b.Fatalf("pod %d: ledger served %v, asked %v", i, got, v.ledger)
					}
				}
				if errored != v.wantErrored {
					b.Fatalf("%d pods not read, want %d: %v", errored, v.wantErrored, errs)
				}
			}
			b.StopTimer()
			slices.Sort(passes)
			pct := func(p float64) time.Duration { return passes[min(len(passes)-1, int(p*float64(len(passes))))] }
			b.ReportMetric(float64(pct(0.50))/1e6, "p50-ms/pass")
			b.ReportMetric(float64(pct(0.99))/1e6, "p99-ms/pass")
			b.ReportMetric(float64(served.Load())/float64(len(passes)), "B/pass")
			b.ReportMetric(float64(len(pods[0].withLedger)), "B/pod-with-ledger")
			b.ReportMetric(float64(len(pods[0].withoutLedger)), "B/pod-without-ledger")
		})
	}
}
