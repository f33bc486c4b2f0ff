package plan

import (
	"fmt"
	"time"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Waits for work that moves the loaded data (a volume snapshot, a restart's WAL replay, a standby
// rebuilt from a base backup after a fault) grow with it.
const (
	// DataBytesPerWarehouse is what one loaded warehouse takes on disk, tables and indexes: the
	// study's 18,000 warehouses held about 1.4 TB, 78 MB each, rounded up.
	DataBytesPerWarehouse = 80 << 20
	// DataRate is the slowest rate such work is expected to keep over the whole data: a volume
	// snapshot, a base backup or a replay at 100 MiB/s.
	DataRate = 100 << 20
)

// DataWait is how long the operator waits for work that moves the loaded data: base
// (--database-ready-timeout), or the run's loaded warehouses at DataRate, whichever is longer.
// The words say how the figure was derived, for the condition that reports a wait run out.
func DataWait(run *benchv1.BenchmarkRun, base time.Duration) (time.Duration, string) {
	warehouses := int64(run.Spec.Workload.Warehouses)
	data := time.Duration(float64(warehouses*DataBytesPerWarehouse) / DataRate * float64(time.Second)).Round(time.Second)
	if data <= base {
		return base, fmt.Sprintf("%s (--database-ready-timeout; %d warehouses of about %d MiB move in %s at %d MiB/s)",
			base, warehouses, DataBytesPerWarehouse>>20, data, DataRate>>20)
	}
	return data, fmt.Sprintf("%s (%d warehouses of about %d MiB at %d MiB/s, longer than --database-ready-timeout's %s)",
		data, warehouses, DataBytesPerWarehouse>>20, DataRate>>20, base)
}
