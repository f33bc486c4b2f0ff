package k6ext

import (
	"testing"
	"time"
)

func TestSealGrace(t *testing.T) {
	cases := []struct{ interval, want time.Duration }{
		{100 * time.Millisecond, 10 * time.Millisecond}, // the shortest interval Validate accepts
		{time.Second, 100 * time.Millisecond},
		{2500 * time.Millisecond, 250 * time.Millisecond},
		{10 * time.Second, 250 * time.Millisecond}, // the default interval: capped
		{time.Hour, 250 * time.Millisecond},
	}
	for _, c := range cases {
		if got := sealGrace(c.interval); got != c.want {
			t.Errorf("sealGrace(%v) = %v, want %v", c.interval, got, c.want)
		}
	}
}
