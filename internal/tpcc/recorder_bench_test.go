package tpcc

import (
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkRecord is the recorder's hot path: one outcome per op from parallel terminals, with
// the whole-step histograms only (as before the time series) and with 10 s intervals on.
//
//	go test ./internal/tpcc/ -run XXX -bench Record -count 5
func BenchmarkRecord(b *testing.B) {
	for _, intervals := range []bool{false, true} {
		name := "whole-step"
		if intervals {
			name = "with-intervals"
		}
		b.Run(name, func(b *testing.B) {
			r := NewRecorder()
			t0 := time.Now()
			if intervals {
				if err := r.StartIntervals(t0, 10*time.Second, 0); err != nil {
					b.Fatal(err)
				}
			}
			r.BeginMeasurement(t0)
			var terminal atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				term := int(terminal.Add(1))
				i := 0
				for pb.Next() {
					i++
					end := t0.Add(time.Duration(i) * time.Microsecond)
					o := Outcome{Type: txType(i % int(txTypes)), Start: end.Add(-time.Duration(i%5000) * time.Microsecond), End: end, Lines: 10}
					r.Record(term, &o)
				}
			})
		})
	}
}
