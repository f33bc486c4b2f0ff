package pgwire

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/crdb"
)

// CockroachDB telemetry from crdb_internal (docs/telemetry.md): liveness from gossip, range
// health and raft leadership per store, SQL commit counters and CPU per node. CockroachDB has no
// standbys (every range replicates by Raft), no WAL position and no checkpoints of PostgreSQL's kind.
const (
	crdbLivenessSQL = `SELECT node_id, is_live FROM crdb_internal.gossip_nodes ORDER BY node_id`
	// crdbStoresSQL sums each node's stores: replicas, raft leaders, leaseholders, under-replicated
	// and unavailable ranges (counted by the leaseholder's store), used and live bytes.
	crdbStoresSQL = `SELECT node_id,
       sum((metrics->>'replicas')::FLOAT8)::INT8,
       sum((metrics->>'replicas.leaders')::FLOAT8)::INT8,
       sum((metrics->>'replicas.leaseholders')::FLOAT8)::INT8,
       sum((metrics->>'ranges.underreplicated')::FLOAT8)::INT8,
       sum((metrics->>'ranges.unavailable')::FLOAT8)::INT8,
       sum(used)::INT8,
       sum((metrics->>'livebytes')::FLOAT8)::INT8
  FROM crdb_internal.kv_store_status GROUP BY node_id ORDER BY node_id`
	// crdbNodesSQL reads each node's cumulative SQL transaction counters and its CPU use
	// (normalized: a fraction of the node's cores).
	crdbNodesSQL = `SELECT node_id,
       coalesce((metrics->>'sql.txn.commit.count')::FLOAT8, 0)::INT8,
       coalesce((metrics->>'sql.txn.rollback.count')::FLOAT8, 0)::INT8,
       coalesce((metrics->>'sys.cpu.combined.percent-normalized')::FLOAT8, 0)
  FROM crdb_internal.kv_node_status ORDER BY node_id`
)

type crdbLivenessRow struct {
	node int64
	live bool
}

type crdbStoreRow struct {
	node                                                      int64
	replicas, leaders, leaseholders, underReplicated, unavail int64
	used, live                                                int64
}

type crdbNodeRow struct {
	node               int64
	commits, rollbacks int64
	cpuFraction        float64
}

// crdbRaw is one reading.
type crdbRaw struct {
	at       time.Time
	liveness []crdbLivenessRow
	stores   []crdbStoreRow
	nodes    []crdbNodeRow
}

// crdbTelemetry converts two consecutive readings (prev nil for the first) into one interval's
// telemetry: one Node per node seen in any of the three reads, sorted by id.
func crdbTelemetry(prev, cur *crdbRaw) *snapshot.Telemetry {
	t := &snapshot.Telemetry{SampledAt: cur.at, Engine: cockroachName, Ranges: &snapshot.RangeHealth{}}
	byID := map[int64]*snapshot.Node{}
	var order []int64
	node := func(id int64) *snapshot.Node {
		if n, ok := byID[id]; ok {
			return n
		}
		byID[id] = &snapshot.Node{ID: id}
		order = append(order, id)
		return byID[id]
	}
	for _, l := range cur.liveness {
		live := l.live
		node(l.node).Live = &live
	}
	var liveBytes int64
	for _, s := range cur.stores {
		n := node(s.node)
		s := s
		n.Replicas, n.Leaders, n.Leaseholders = &s.replicas, &s.leaders, &s.leaseholders
		n.UnderReplicated, n.Unavailable, n.UsedBytes = &s.underReplicated, &s.unavail, &s.used
		t.Ranges.UnderReplicated += s.underReplicated
		t.Ranges.Unavailable += s.unavail
		liveBytes += s.live
	}
	t.DatabaseBytes = &liveBytes
	var commits, rollbacks int64
	for _, r := range cur.nodes {
		pct := r.cpuFraction * 100
		node(r.node).CPUPercent = &pct
		commits += r.commits
		rollbacks += r.rollbacks
	}
	slices.Sort(order)
	for _, id := range order {
		t.Nodes = append(t.Nodes, *byID[id])
	}
	if prev != nil {
		var pc, pr int64
		for _, r := range prev.nodes {
			pc += r.commits
			pr += r.rollbacks
		}
		dt := cur.at.Sub(prev.at)
		t.CommitsPerSecond = tpcc.PerSecond(pc, commits, dt)
		t.RollbacksPerSecond = tpcc.PerSecond(pr, rollbacks, dt)
	}
	return t
}

// crdbTelemetrySampler samples CockroachDB over one connection (any node: crdb_internal's
// cluster-wide tables answer from every node).
type crdbTelemetrySampler struct {
	conn *pgx.Conn
	prev *crdbRaw
}

func newCRDBTelemetry(ctx context.Context, url string) (*crdbTelemetrySampler, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("--telemetry: --url: cannot connect: %s", snapshot.RedactCredentials(err.Error()))
	}
	return &crdbTelemetrySampler{conn: conn}, nil
}

func (c *crdbTelemetrySampler) Close() { c.conn.Close(context.Background()) }

// Settings reads the named cluster settings with SHOW CLUSTER SETTING (internal/tpcc/crdb): the
// ones the run asked for. Which other settings differ from their defaults is not read: only
// versions this project cannot run expose it (the origin column of SHOW CLUSTER SETTINGS).
func (c *crdbTelemetrySampler) Settings(ctx context.Context, names []string) (map[string]string, error) {
	if len(names) == 0 {
		return nil, errors.New("not read on CockroachDB: the run named no cluster settings (docs/telemetry.md)")
	}
	values, failed := crdb.Read(ctx, c.conn, names)
	return values, failedSettings(failed)
}

// failedSettings is the error naming the settings that could not be read, nil when none.
func failedSettings(failed map[string]string) error {
	if len(failed) == 0 {
		return nil
	}
	names := make([]string, 0, len(failed))
	for n := range failed {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + snapshot.RedactCredentials(failed[n])
	}
	return fmt.Errorf("settings not read: %s", strings.Join(parts, "; "))
}

func (c *crdbTelemetrySampler) Sample(ctx context.Context) *snapshot.Telemetry {
	cur, err := c.read(ctx)
	if err != nil {
		return tpcc.FailedSample(cockroachName, time.Now(), err)
	}
	t := crdbTelemetry(c.prev, cur)
	c.prev = cur
	return t
}

func (c *crdbTelemetrySampler) read(ctx context.Context) (*crdbRaw, error) {
	r := &crdbRaw{at: time.Now()}
	var err error
	if r.liveness, err = collectRows(ctx, c.conn, crdbLivenessSQL, func(row pgx.CollectableRow) (l crdbLivenessRow, err error) {
		err = row.Scan(&l.node, &l.live)
		return l, err
	}); err != nil {
		return nil, fmt.Errorf("crdb_internal.gossip_nodes: %w", err)
	}
	if r.stores, err = collectRows(ctx, c.conn, crdbStoresSQL, func(row pgx.CollectableRow) (s crdbStoreRow, err error) {
		err = row.Scan(&s.node, &s.replicas, &s.leaders, &s.leaseholders, &s.underReplicated, &s.unavail, &s.used, &s.live)
		return s, err
	}); err != nil {
		return nil, fmt.Errorf("crdb_internal.kv_store_status: %w", err)
	}
	if r.nodes, err = collectRows(ctx, c.conn, crdbNodesSQL, func(row pgx.CollectableRow) (n crdbNodeRow, err error) {
		err = row.Scan(&n.node, &n.commits, &n.rollbacks, &n.cpuFraction)
		return n, err
	}); err != nil {
		return nil, fmt.Errorf("crdb_internal.kv_node_status: %w", err)
	}
	return r, nil
}

// collectRows runs one query and converts its rows.
func collectRows[T any](ctx context.Context, conn *pgx.Conn, sql string, fn pgx.RowToFunc[T]) ([]T, error) {
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, fn)
}
