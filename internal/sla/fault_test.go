package sla

import (
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// series builds a 1 s series from interval 0 of per-second New-Order and Payment completions and
// errors; a negative New-Order count marks an interval no pod delivered.
func faultSeries(newOrders, errors []int64) snapshot.CompactSeries {
	s := snapshot.CompactSeries{LengthSeconds: 1, Types: map[snapshot.Transaction]*snapshot.CompactColumns{
		snapshot.NewOrder: {}, snapshot.Payment: {}, snapshot.StockLevel: {}}}
	for i, n := range newOrders {
		if n < 0 {
			continue
		}
		s.Index = append(s.Index, i)
		no, pay := s.Types[snapshot.NewOrder], s.Types[snapshot.Payment]
		no.Completed = append(no.Completed, n)
		pay.Completed = append(pay.Completed, n) // as many Payments
		var e int64
		if errors != nil {
			e = errors[i]
		}
		no.Errors = append(no.Errors, e)
		pay.Errors = append(pay.Errors, 0)
		// Reads complete throughout, outage or not: they never end one.
		st := s.Types[snapshot.StockLevel]
		st.Completed, st.Errors = append(st.Completed, 3), append(st.Errors, 0)
	}
	return s
}

func repeat(v int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func concat(parts ...[]int64) []int64 {
	var out []int64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestMeasureFault(t *testing.T) {
	origin := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	sec := func(n int) time.Time { return origin.Add(time.Duration(n) * time.Second) }
	cases := []struct {
		name                   string
		newOrders, errors      []int64
		measuredStart, faultAt time.Time
		unavailable            time.Duration
		unavailableFrom        time.Time
		recovered              bool
		recovery               time.Duration
		baseline               float64
		newOrderErrors         int64
		atEnd                  bool
	}{
		{
			// 20 s ramp-up (nothing measured), 70 s at 10/s, fault at 90.5 s: 12 s of nothing,
			// 3 s at 5/s, then 10/s again.
			name:          "outage then recovery",
			newOrders:     concat(repeat(0, 20), repeat(10, 70), []int64{6}, repeat(0, 12), repeat(5, 3), repeat(10, 30)),
			errors:        concat(repeat(0, 91), repeat(2, 12), repeat(0, 33)),
			measuredStart: sec(20), faultAt: sec(90).Add(500 * time.Millisecond),
			unavailable: 12 * time.Second, unavailableFrom: sec(91),
			// windows from 103: 5,5,5,10×7 = 85 < 90; from 104: 5,5,10×8 = 90 ≥ 90.
			recovered: true, recovery: sec(104).Sub(sec(90).Add(500 * time.Millisecond)),
			baseline: 10, newOrderErrors: 24,
		},
		{
			name: "a fault that costs nothing", newOrders: repeat(10, 120),
			measuredStart: sec(0), faultAt: sec(60),
			recovered: true, recovery: 0, baseline: 10,
		},
		{
			name: "never recovers", newOrders: concat(repeat(10, 60), repeat(0, 5), repeat(3, 40)),
			measuredStart: sec(0), faultAt: sec(60),
			unavailable: 5 * time.Second, unavailableFrom: sec(60), baseline: 10,
		},
		{
			// Nothing commits again before the step ends: the outage is at least what was seen.
			name: "down to the end", newOrders: concat(repeat(10, 60), repeat(0, 30)),
			measuredStart: sec(0), faultAt: sec(60),
			unavailable: 30 * time.Second, unavailableFrom: sec(60), baseline: 10, atEnd: true,
		},
		{
			// Interval 65 was not delivered: the outage is not known to span it.
			name: "a missing interval ends the outage", newOrders: concat(repeat(10, 60), repeat(0, 5), []int64{-1}, repeat(0, 3), repeat(10, 20)),
			measuredStart: sec(0), faultAt: sec(60),
			unavailable: 5 * time.Second, unavailableFrom: sec(60), recovered: true, recovery: 8 * time.Second, baseline: 10,
		},
		{
			// Only 10 measured seconds before the fault: the baseline averages those.
			name: "short baseline", newOrders: concat(repeat(0, 50), repeat(4, 10), repeat(0, 2), repeat(4, 20)),
			measuredStart: sec(50), faultAt: sec(60),
			unavailable: 2 * time.Second, unavailableFrom: sec(60), recovered: true, recovery: 2 * time.Second, baseline: 4,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := MeasureFault(faultSeries(tc.newOrders, tc.errors), origin, tc.measuredStart, tc.faultAt)
			if err != nil {
				t.Fatal(err)
			}
			if f.Unavailability != tc.unavailable || !f.UnavailableFrom.Equal(tc.unavailableFrom) {
				t.Errorf("unavailability %s from %s, want %s from %s", f.Unavailability, f.UnavailableFrom, tc.unavailable, tc.unavailableFrom)
			}
			if f.Recovered != tc.recovered || f.Recovery != tc.recovery {
				t.Errorf("recovered %v after %s, want %v after %s", f.Recovered, f.Recovery, tc.recovered, tc.recovery)
			}
			if f.UnavailableAtEnd != tc.atEnd {
				t.Errorf("unavailable at the end %v, want %v", f.UnavailableAtEnd, tc.atEnd)
			}
			if f.BaselineNewOrdersPerSecond != tc.baseline {
				t.Errorf("baseline %.2f/s, want %.2f/s", f.BaselineNewOrdersPerSecond, tc.baseline)
			}
			if got := f.Errors[snapshot.NewOrder]; got != tc.newOrderErrors {
				t.Errorf("New-Order errors %d, want %d", got, tc.newOrderErrors)
			}
		})
	}
}

func TestUnavailabilityCheck(t *testing.T) {
	for _, tc := range []struct {
		measured, bound time.Duration
		atEnd           bool
		want            Status
	}{
		{12 * time.Second, 30 * time.Second, false, Pass}, {30 * time.Second, 30 * time.Second, false, Pass},
		{31 * time.Second, 30 * time.Second, false, Fail},
		{10 * time.Second, 30 * time.Second, true, Fail}, // the step ended before any commit came back
	} {
		if got := UnavailabilityCheck(tc.measured, tc.bound, tc.atEnd); got.Status != tc.want {
			t.Errorf("%s against %s: %s (%s)", tc.measured, tc.bound, got.Status, got.Detail)
		}
	}
}
