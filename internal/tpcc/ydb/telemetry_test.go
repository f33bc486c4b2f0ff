package ydb

import (
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestYDBTelemetry(t *testing.T) {
	for _, want := range []string{"FROM `.sys/partition_stats`", "GROUP BY NodeId", "SUM(CPUCores)", "SUM(DataSize)",
		"SUM(ImmediateTxCompleted)", "SUM(CoordinatedTxCompleted)", "SUM(LocksWhichBroken)", "SUM(TxRejectedByOverload)"} {
		if !strings.Contains(ydbPartitionStatsYQL, want) {
			t.Errorf("YQL lacks %q:\n%s", want, ydbPartitionStatsYQL)
		}
	}
	u := func(v uint64) *uint64 { return &v }
	node, cores := uint32(7), 1.5
	row := ydbNodeRowOf(&node, u(12), u(1000), u(200), &cores, u(40), u(60), u(3), nil)
	if row != (ydbNodeRow{node: 7, partitions: 12, dataSize: 1000, indexSize: 200, cpuCores: 1.5, txCompleted: 100, locksBroken: 3}) {
		t.Fatalf("row %+v", row)
	}
	if empty := ydbNodeRowOf(nil, nil, nil, nil, nil, nil, nil, nil, nil); empty != (ydbNodeRow{}) {
		t.Fatalf("NULL row %+v", empty)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := &ydbRaw{at: t0, nodes: []ydbNodeRow{{node: 7, txCompleted: 100, locksBroken: 3}, {node: 8, txCompleted: 50, overload: 9}}}
	cur := &ydbRaw{at: t0.Add(10 * time.Second), nodes: []ydbNodeRow{row, {node: 8, partitions: 3, dataSize: 10, txCompleted: 2050, locksBroken: 5, overload: 2}}}
	tel := ydbTelemetry(prev, cur)
	if len(tel.Nodes) != 2 || *tel.Nodes[0].Replicas != 12 || !near(*tel.Nodes[0].CPUCores, 1.5) || *tel.Nodes[0].UsedBytes != 1200 {
		t.Fatalf("nodes %+v", tel.Nodes)
	}
	if *tel.DatabaseBytes != 1210 || !near(*tel.CommitsPerSecond, 200) || *tel.LocksBroken != 5 || *tel.Overloaded != 0 {
		t.Errorf("database %d B, %v tx/s, %d broken, %d overloaded (a sum that went back counts 0)",
			*tel.DatabaseBytes, *tel.CommitsPerSecond, *tel.LocksBroken, *tel.Overloaded)
	}
	if first := ydbTelemetry(nil, cur); first.CommitsPerSecond != nil || first.LocksBroken != nil {
		t.Errorf("first sample has rates: %+v", first)
	}
}
