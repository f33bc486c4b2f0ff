package tpcc

import (
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func TestPoolSignals(t *testing.T) {
	got := PoolSignals(PoolStats{Acquires: 10, Waits: 2, Wait: time.Second}, PoolStats{Acquires: 110, Waits: 12, Wait: 3 * time.Second})
	if got != (snapshot.ClientSignals{PoolAcquires: 100, PoolWaits: 10, PoolWaitSeconds: 2}) {
		t.Fatalf("%+v", got)
	}
}

func TestFailedSampleRedacts(t *testing.T) {
	s := FailedSample("postgres", time.Now(), errString("dial postgres://u:secret@h/db: refused"))
	if strings.Contains(s.Error, "secret") || s.Engine != "postgres" {
		t.Fatalf("%+v", s)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
