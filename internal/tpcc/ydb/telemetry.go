package ydb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// YDB telemetry from the database's system view .sys/partition_stats (docs/telemetry.md): per
// node the partitions it serves, their CPU, data size and cumulative transaction, broken-lock
// and overload counters. YDB replicates synchronously inside its storage layer: there are no
// standbys with a lag, no WAL position, no checkpoints and no wait events to read.
const ydbPartitionStatsYQL = "SELECT NodeId, COUNT(*) AS Partitions, SUM(DataSize) AS DataSize, SUM(IndexSize) AS IndexSize,\n" +
	"       SUM(CPUCores) AS CPUCores, SUM(ImmediateTxCompleted) AS ImmediateTx, SUM(CoordinatedTxCompleted) AS CoordinatedTx,\n" +
	"       SUM(LocksWhichBroken) AS LocksBroken, SUM(TxRejectedByOverload) AS Overloaded\n" +
	"FROM `.sys/partition_stats` GROUP BY NodeId ORDER BY NodeId;"

// ydbNodeRow is one node's sums over its partitions (NULL sums read as 0).
type ydbNodeRow struct {
	node                               uint32
	partitions                         uint64
	dataSize, indexSize                uint64
	cpuCores                           float64
	txCompleted, locksBroken, overload uint64
}

type ydbRaw struct {
	at    time.Time
	nodes []ydbNodeRow
}

// ydbTelemetry converts two consecutive readings (prev nil for the first) into one interval's
// telemetry. The cumulative counters restart with a partition's tablet: a sum that went back
// counts as 0 for that interval.
func ydbTelemetry(prev, cur *ydbRaw) *snapshot.Telemetry {
	t := &snapshot.Telemetry{SampledAt: cur.at, Engine: name}
	var size, tx, broken, overload int64
	for _, r := range cur.nodes {
		parts, cores, used := int64(r.partitions), r.cpuCores, int64(r.dataSize+r.indexSize)
		t.Nodes = append(t.Nodes, snapshot.Node{ID: int64(r.node), Replicas: &parts, CPUCores: &cores, UsedBytes: &used})
		size += used
		tx += int64(r.txCompleted)
		broken += int64(r.locksBroken)
		overload += int64(r.overload)
	}
	t.DatabaseBytes = &size
	if prev == nil {
		return t
	}
	var ptx, pbroken, poverload int64
	for _, r := range prev.nodes {
		ptx += int64(r.txCompleted)
		pbroken += int64(r.locksBroken)
		poverload += int64(r.overload)
	}
	t.CommitsPerSecond = tpcc.PerSecond(ptx, tx, cur.at.Sub(prev.at))
	b, o := tpcc.Delta(pbroken, broken), tpcc.Delta(poverload, overload)
	t.LocksBroken, t.Overloaded = &b, &o
	return t
}

// ydbTelemetrySampler samples YDB over its own driver.
type ydbTelemetrySampler struct {
	db   *ydb.Driver
	prev *ydbRaw
}

func newYDBTelemetry(ctx context.Context, url string) (*ydbTelemetrySampler, error) {
	db, err := openYDB(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("--telemetry: %w", err)
	}
	return &ydbTelemetrySampler{db: db}, nil
}

func (y *ydbTelemetrySampler) Close() { _ = y.db.Close(context.Background()) }

// Settings is not read on YDB: its configuration lives in the cluster's config files, not in a
// system view.
func (y *ydbTelemetrySampler) Settings(context.Context, []string) (map[string]string, error) {
	return nil, errors.New("not read on YDB: its settings are not in a system view (docs/telemetry.md)")
}

func (y *ydbTelemetrySampler) Sample(ctx context.Context) *snapshot.Telemetry {
	cur, err := y.read(ctx)
	if err != nil {
		return tpcc.FailedSample(name, time.Now(), err)
	}
	t := ydbTelemetry(y.prev, cur)
	y.prev = cur
	return t
}

// read runs the partition_stats query. No YDB server runs where this was written: the query and
// the row conversion are unit-tested, the round trip is not.
func (y *ydbTelemetrySampler) read(ctx context.Context) (*ydbRaw, error) {
	r := &ydbRaw{at: time.Now()}
	rs, err := y.db.Query().QueryResultSet(ctx, ydbPartitionStatsYQL)
	if err != nil {
		return nil, fmt.Errorf(".sys/partition_stats: %w", err)
	}
	defer rs.Close(ctx) //nolint:errcheck
	for {
		row, err := rs.NextRow(ctx)
		if err == io.EOF {
			return r, nil
		}
		if err != nil {
			return nil, fmt.Errorf(".sys/partition_stats: %w", err)
		}
		var node *uint32
		var parts, data, index, imm, coord, broken, over *uint64
		var cores *float64
		if err := row.Scan(&node, &parts, &data, &index, &cores, &imm, &coord, &broken, &over); err != nil {
			return nil, fmt.Errorf(".sys/partition_stats: %w", err)
		}
		r.nodes = append(r.nodes, ydbNodeRowOf(node, parts, data, index, cores, imm, coord, broken, over))
	}
}

// ydbNodeRowOf turns one scanned row (NULL as nil) into a node row.
func ydbNodeRowOf(node *uint32, parts, data, index *uint64, cores *float64, imm, coord, broken, over *uint64) ydbNodeRow {
	u := func(p *uint64) uint64 {
		if p == nil {
			return 0
		}
		return *p
	}
	r := ydbNodeRow{partitions: u(parts), dataSize: u(data), indexSize: u(index), txCompleted: u(imm) + u(coord),
		locksBroken: u(broken), overload: u(over)}
	if node != nil {
		r.node = *node
	}
	if cores != nil {
		r.cpuCores = *cores
	}
	return r
}
