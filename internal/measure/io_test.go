package measure

import (
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/cadvisor"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

// Two readings 5 s apart give the rate in the interval of the later one; a restarted counter
// gives none; a reading before the step's origin only sets the baseline.
func TestAddIO(t *testing.T) {
	origin := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := &StepSeries{Origin: origin, LengthSeconds: 10}
	roles := map[string]string{"db-1": RoleDatabase}
	read := func(at time.Duration, writes float64) {
		st.AddIO(map[string]cadvisor.Counters{"db-1": {DiskWriteBytes: writes, Disk: true}}, roles, origin.Add(at))
	}
	read(-2*time.Second, 0)
	read(3*time.Second, 5e6)  // 1 MB/s over 5 s, in interval 0
	read(8*time.Second, 15e6) // 2 MB/s, interval 0 keeps the larger
	read(13*time.Second, 16e6)
	read(18*time.Second, 10) // restarted: no rate
	p := st.Resources["db-1"]
	if p == nil || p.Role != RoleDatabase || len(p.IOIndex) != 2 || p.IOIndex[0] != 0 || p.DiskWriteBytes[0] != 2e6 || p.IOIndex[1] != 1 || p.DiskWriteBytes[1] != 2e5 {
		t.Errorf("pod series %+v", p)
	}
	if io := PodIO(p); io == nil || io.DiskWriteBytesPerSecond != 2e6 {
		t.Errorf("status I/O %+v", io)
	}
	if PodIO(&snapshot.PodSeries{}) != nil {
		t.Error("a pod without I/O got a status entry")
	}

	// With cAdvisor's update times (the scrape's sample timestamps): rates between updates over
	// the time between them, wherever the scrapes fall. cAdvisor updates every 15 s here; the
	// operator scrapes every 2 s.
	st = &StepSeries{Origin: origin, LengthSeconds: 10}
	scrape := func(at time.Duration, updated time.Duration, sent float64) {
		st.AddIO(map[string]cadvisor.Counters{"db-1": {NetTransmitBytes: sent, Net: true, At: origin.Add(updated)}}, roles, origin.Add(at))
	}
	scrape(-1*time.Second, -3*time.Second, 1e6)
	for at := time.Duration(0); at < 30*time.Second; at += 2 * time.Second {
		updated := (at + 3*time.Second).Truncate(15*time.Second) - 3*time.Second // updates at 12 s and 27 s
		scrape(at, updated, 1e6+float64((updated+3*time.Second).Seconds())*20e3) // 20 kB/s throughout
	}
	p = st.Resources["db-1"]
	if p == nil || len(p.IOIndex) != 2 || p.IOIndex[0] != 1 || p.IOIndex[1] != 2 || p.NetTransmitBytes[0] != 20e3 || p.NetTransmitBytes[1] != 20e3 {
		t.Errorf("stamped readings: %+v, want 20 kB/s in intervals 1 and 2 (the updates at 12 s and 27 s), nothing charged to the scrapes between", p)
	}
}
