package report

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
)

func near(a, b float64) bool { return math.Abs(a-b) < 0.005 }

func TestSummarize(t *testing.T) {
	cases := []struct {
		name           string
		values         []float64
		mean, min, max float64
		ci             *benchv1.Interval // hand-computed: mean ± t(0.975, n-1)·s/√n
	}{
		{"one run", []float64{250}, 250, 250, 250, nil},
		{"two runs: no interval", []float64{240, 260}, 250, 240, 260, nil},
		// s = 10, t(0.975, 2) = 4.303: half = 4.303·10/√3 = 24.8434
		{"three runs", []float64{100, 110, 120}, 110, 100, 120, &benchv1.Interval{Low: 85.16, High: 134.84}},
		// s = √(20/3) = 2.5820, t(0.975, 3) = 3.182: half = 3.182·2.5820/2 = 4.1080
		{"four runs", []float64{10, 12, 14, 16}, 13, 10, 16, &benchv1.Interval{Low: 8.89, High: 17.11}},
		// equal values: s = 0, the interval is the mean
		{"three equal runs", []float64{7, 7, 7}, 7, 7, 7, &benchv1.Interval{Low: 7, High: 7}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.values)
			if !near(s.Mean, tc.mean) || !near(s.Min, tc.min) || !near(s.Max, tc.max) {
				t.Errorf("got %+v, want mean %v min %v max %v", s, tc.mean, tc.min, tc.max)
			}
			switch {
			case tc.ci == nil && s.CI95 != nil:
				t.Errorf("interval %+v with %d runs", s.CI95, len(tc.values))
			case tc.ci != nil && (s.CI95 == nil || !near(s.CI95.Low, tc.ci.Low) || !near(s.CI95.High, tc.ci.High)):
				t.Errorf("interval %+v, want %+v", s.CI95, tc.ci)
			}
		})
	}
	if Summarize(nil) != nil {
		t.Error("a statistic of no values")
	}
}

func TestT975(t *testing.T) {
	for df, want := range map[int]float64{1: 12.706, 2: 4.303, 9: 2.262, 30: 2.042, 31: 1.960, 1000: 1.960} {
		if got := T975(df); got != want {
			t.Errorf("t(0.975, %d) = %v, want %v", df, got, want)
		}
	}
	if !math.IsNaN(T975(0)) {
		t.Error("t for 0 degrees of freedom")
	}
}

func i32(v int32) *int32 { return &v }

func pg(instances, sync int32, commit benchv1.SynchronousCommit) benchv1.DatabaseSpec {
	return benchv1.DatabaseSpec{Engine: benchv1.EnginePostgreSQL, Postgres: &benchv1.PostgresSpec{Instances: instances, SynchronousReplicas: i32(sync), SynchronousCommit: commit}}
}

// The report orders the levels an engine describes, and keeps its words; a level it does not know
// reads as unknown, never as some engine's.
func TestDurabilityOf(t *testing.T) {
	for level, want := range map[benchv1.DurabilityLevel]Level{
		benchv1.DurabilityNoCopy: LevelNoCopy, benchv1.DurabilityUnknown: LevelUnknown, benchv1.DurabilityOneCopy: LevelOneCopy,
		benchv1.DurabilityRemoteMemory: LevelRemoteMemory, benchv1.DurabilityReplicatedDisk: LevelReplicatedDisk, "Quorum": LevelUnknown,
	} {
		d := DurabilityOf(benchv1.DatabaseDescription{Durability: benchv1.Durability{Words: "w", Level: level, Loses: "l"}})
		if d.Level != want || d.Words != "w" || d.Loses != "l" {
			t.Errorf("%s: %+v, want level %d", level, d, want)
		}
	}
	if LevelNoCopy >= LevelUnknown || LevelUnknown >= LevelOneCopy || LevelOneCopy >= LevelRemoteMemory || LevelRemoteMemory >= LevelReplicatedDisk {
		t.Error("levels out of order")
	}
}

func withResources(db benchv1.DatabaseSpec, cpu, memory string) benchv1.DatabaseSpec {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}
	switch db.Engine {
	case benchv1.EngineCockroachDB:
		db.Cockroach = &benchv1.CockroachSpec{Nodes: 3, Resources: r}
	case benchv1.EngineYDB:
		db.YDB = &benchv1.YDBSpec{Erasure: benchv1.ErasureMirror3DC, StorageNodes: 3, DatabaseNodes: 3, Resources: r}
	default:
		db.Postgres.Resources = r
	}
	return db
}

// study is the reference study's three engines on equal resources (24 CPU, 96Gi each).
func study() benchv1.BenchmarkSuiteSpec {
	return benchv1.BenchmarkSuiteSpec{
		Repeats: 1,
		// One isolation level for all: the notes of the cases below are the only ones.
		Workload: benchv1.WorkloadSpec{Warehouses: 20000, Wait: benchv1.WaitSpec, Isolation: benchv1.IsolationSerializable},
		Databases: []benchv1.SuiteDatabase{
			{Name: "pg", Database: withResources(pg(3, 2, "remote_apply"), "8", "32Gi")},
			{Name: "ydb", Database: withResources(benchv1.DatabaseSpec{Engine: benchv1.EngineYDB}, "4", "16Gi")},
			{Name: "crdb", Database: withResources(benchv1.DatabaseSpec{Engine: benchv1.EngineCockroachDB}, "8", "32Gi")},
		},
	}
}

func succeeded(name, db string, repeat int32, warehouses int32, efficiency float64) benchv1.SuiteRunRecord {
	tpmC := float64(warehouses) * 12.86 * efficiency / 100
	return benchv1.SuiteRunRecord{Name: name, Database: db, Repeat: repeat, Phase: benchv1.PhaseSucceeded, Report: name + "-report",
		Result: &benchv1.SuiteRunResult{MaxCompliantWarehouses: warehouses, TpmC: tpmC, Efficiency: efficiency,
			Latency: map[benchv1.Transaction]benchv1.LatencyPercentiles{benchv1.NewOrder: {
				P50: metav1.Duration{Duration: time.Duration(warehouses) * time.Microsecond * 50},
				P95: metav1.Duration{Duration: time.Duration(warehouses) * time.Microsecond * 150},
				P99: metav1.Duration{Duration: time.Duration(warehouses) * time.Microsecond * 200}}}}}
}

// The study's result: PostgreSQL 18K at 92.37 %, 1.05× YDB (16K, 98.57 %), CockroachDB 12K at 97.8 %.
func TestCompareTheStudy(t *testing.T) {
	c := mustCompare(Input{Suite: "study", Namespace: "bench", Spec: study(), Runs: []benchv1.SuiteRunRecord{
		succeeded("study-pg-1", "pg", 1, 18000, 92.37),
		succeeded("study-ydb-1", "ydb", 1, 16000, 98.57),
		succeeded("study-crdb-1", "crdb", 1, 12000, 97.8),
	}})
	if !c.Complete || c.RunsDone != 3 || c.Leader != "pg" {
		t.Fatalf("complete %v, %d runs done, leader %q", c.Complete, c.RunsDone, c.Leader)
	}
	if len(c.Notes) != 0 {
		t.Errorf("notes for databases at parity: %q", c.Notes)
	}
	want := map[string]struct {
		versus string
		ratio  float64
	}{
		"pg":   {"1.05× ydb", 1},
		"ydb":  {"pg is 1.05× this", 0.9485},
		"crdb": {"pg is 1.42× this", 0.7058},
	}
	for _, r := range c.Results {
		w := want[r.Database]
		if r.Versus != w.versus || math.Abs(r.RatioToLeader-w.ratio) > 0.0001 {
			t.Errorf("%s: versus %q ratio %v, want %q %v", r.Database, r.Versus, r.RatioToLeader, w.versus, w.ratio)
		}
		if r.RunsDone != 1 || r.RunsSucceeded != 1 || r.TpmC == nil || r.TpmC.CI95 != nil {
			t.Errorf("%s: %+v", r.Database, r)
		}
	}
	md := Markdown(c)
	if err := contains(md, "Leader: **pg** (1.05× ydb).", "| pg | PostgreSQL, 3 instances, 2 synchronous (remote_apply) | 1/1 | 18000 | 213818.1 | 92.37 | both synchronous standbys applied it (remote_apply) | 1.05× ydb |",
		"| crdb | CockroachDB, 3 nodes | 1/1 | 12000 | 150925.0 | 97.80 | a Raft majority of 3 replicas | pg is 1.42× this |",
		"### ydb", "| NewOrder | 800.0ms | 2.40s | 3.20s |", "| study-crdb-1 | crdb | 1 | Succeeded | 12000 | 150925.0 | 97.80 | study-crdb-1-report | - |"); err != nil {
		t.Error(err)
	}
	if strings.Contains(md, "Fairness notes") {
		t.Error("a fairness section without notes")
	}
}

func TestRepeatsAndFailures(t *testing.T) {
	spec := study()
	spec.Repeats = 3
	runs := []benchv1.SuiteRunRecord{
		succeeded("s-pg-1", "pg", 1, 100, 90), succeeded("s-ydb-1", "ydb", 1, 80, 95), {Name: "s-crdb-1", Database: "crdb", Repeat: 1, Phase: benchv1.PhaseFailed, Reason: "LoadFailed", Message: "loader pod 0 failed"},
		succeeded("s-pg-2", "pg", 2, 110, 91), succeeded("s-ydb-2", "ydb", 2, 80, 96), succeeded("s-crdb-2", "crdb", 2, 60, 97),
		succeeded("s-pg-3", "pg", 3, 120, 92), {Name: "s-ydb-3", Database: "ydb", Repeat: 3, Phase: benchv1.PhaseRunning}, {Name: "s-crdb-3", Database: "crdb", Repeat: 3},
	}
	c := mustCompare(Input{Suite: "s", Namespace: "n", Spec: spec, Runs: runs})
	if c.Complete || c.RunsDone != 7 || c.RunsPlanned != 9 {
		t.Fatalf("complete %v, %d/%d", c.Complete, c.RunsDone, c.RunsPlanned)
	}
	pgRow := c.Results[0]
	// warehouses 100, 110, 120: mean 110, 95 % CI 110 ± 4.303·10/√3
	if w := pgRow.MaxCompliantWarehouses; w.Mean != 110 || w.Min != 100 || w.Max != 120 || w.CI95 == nil || w.CI95.Low != 85.16 || w.CI95.High != 134.84 {
		t.Errorf("pg warehouses %+v %+v", w, w.CI95)
	}
	// efficiency 90, 91, 92: mean 91, s = 1, half = 4.303/√3 = 2.4843
	if e := pgRow.Efficiency; e.Mean != 91 || e.CI95 == nil || e.CI95.Low != 88.52 || e.CI95.High != 93.48 {
		t.Errorf("pg efficiency %+v %+v", e, e.CI95)
	}
	// NewOrder p95 at 100, 110, 120 warehouses: 15, 16.5, 18 ms: mean 16.5 ms
	if p95 := pgRow.Latency[benchv1.NewOrder].P95.Duration; p95 != 16500*time.Microsecond {
		t.Errorf("pg NewOrder p95 %s, want 16.5ms", p95)
	}
	if r := c.Results[1]; r.RunsDone != 2 || r.RunsSucceeded != 2 || r.TpmC.CI95 != nil {
		t.Errorf("ydb %+v", r)
	}
	if r := c.Results[2]; r.RunsDone != 2 || r.RunsSucceeded != 1 || r.TpmC.Mean != 748.45 {
		t.Errorf("crdb %+v %+v", r, r.TpmC)
	}
	if err := contains(strings.Join(c.Notes, "\n"), "runs: crdb has results from 1 of 2 ended runs (failed s-crdb-1: LoadFailed)"); err != nil {
		t.Error(err)
	}
	md := Markdown(c)
	if err := contains(md, "7 of 9 runs ended (in progress).", "| 110 ± 25 (95 % CI 85–135; 100–120) |", "| s-crdb-1 | crdb | 1 | Failed | - | - | - | - | LoadFailed: loader pod 0 failed |",
		"| s-crdb-3 | crdb | 3 | - |"); err != nil {
		t.Error(err)
	}
}

func TestFairnessNotes(t *testing.T) {
	cases := []struct {
		name string
		edit func(s *benchv1.BenchmarkSuiteSpec)
		want []string
	}{
		{"asynchronous PostgreSQL against replicated engines", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[0].Database.Postgres.SynchronousReplicas = i32(0)
		}, []string{"durability not at parity: a commit on pg waits for the primary's own WAL flush only (2 asynchronous standbys, 0 synchronous replicas); on ydb for mirror-3-dc (3 replicas in 3 failure domains): it can lose acknowledged commits when its primary fails, so pg's figures are not comparable on equal durability"}},
		{"remote_write against replicated engines", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[0].Database.Postgres.SynchronousCommit = "remote_write"
		}, []string{"durability not at parity: a commit on pg waits for both synchronous standbys wrote it to the operating system, not yet to disk (remote_write); on ydb for mirror-3-dc"}},
		{"a single-node CockroachDB", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[2].Database.Cockroach.Nodes = 1
		}, []string{"durability not at parity: a commit on crdb waits for a single replica (1 node: nothing is replicated); on pg for both synchronous standbys applied it (remote_apply)",
			"resources: the database pods request different totals: pg 24 CPU, 96Gi memory in 3 pods; ydb 24 CPU, 96Gi memory in 6 pods; crdb 8 CPU, 32Gi memory in 1 pod"}},
		{"different requests", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[1].Database.YDB.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("2")
		}, []string{"resources: the database pods request different totals: pg 24 CPU, 96Gi memory in 3 pods; ydb 12 CPU, 96Gi memory in 6 pods; crdb 24 CPU, 96Gi memory in 3 pods"}},
		{"no requests on one", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[2].Database.Cockroach.Resources = corev1.ResourceRequirements{}
		}, []string{"crdb no CPU request, no memory request in 3 pods"}},
		{"no waits", func(s *benchv1.BenchmarkSuiteSpec) { s.Workload.Wait = benchv1.WaitNone },
			[]string{"workload: wait None sends transactions without keying or think times: a stress test, not TPC-C"}},
		{"fsync off on the PostgreSQL with remote_apply", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[0].Database.Postgres.Parameters = map[string]string{"fsync": "off"}
		}, []string{"durability not at parity: a commit on pg waits for no disk flush: fsync is off, so no instance writes a commit to disk before acknowledging it; on ydb for mirror-3-dc (3 replicas in 3 failure domains): " +
			"it can lose acknowledged commits, and corrupt its data, when an instance's operating system crashes or loses power, so pg's figures are not comparable on equal durability",
			"tuning: pg sets 1 postgres.parameters; ydb sets no ydb.config sections; crdb sets no cluster settings (each run's report lists every setting beside the value the database reports)"}},
		{"fsync off everywhere: at parity, still named", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases = s.Databases[:1]
			s.Databases[0].Database.Postgres.Parameters = map[string]string{"fsync": "off"}
		}, []string{"durability: a commit on pg waits for no disk flush: fsync is off, so no instance writes a commit to disk before acknowledging it: " +
			"it can lose acknowledged commits, and corrupt its data, when an instance's operating system crashes or loses power, so its figures are not those of a durable database"}},
		{"each engine's own isolation", func(s *benchv1.BenchmarkSuiteSpec) { s.Workload.Isolation = "" },
			[]string{"isolation not at parity: pg at ReadCommitted; ydb, crdb at Serializable. A weaker level lets concurrent transactions proceed where a stricter one aborts and retries them"}},
		{"tuning asked of one engine only", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[0].Database.Postgres.Parameters = map[string]string{"wal_compression": "on", "max_wal_size": "64GB"}
		}, []string{"tuning: pg sets 2 postgres.parameters; ydb sets no ydb.config sections; crdb sets no cluster settings"}},
		{"an external database", func(s *benchv1.BenchmarkSuiteSpec) {
			s.Databases[1].Database = benchv1.DatabaseSpec{Engine: benchv1.EngineYDB, External: &benchv1.ExternalSpec{SecretRef: benchv1.SecretKeyRef{Name: "ydb"}}}
		}, []string{"durability: ydb is external: what its commits wait for is not known"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := study()
			tc.edit(&spec)
			c := mustCompare(Input{Suite: "s", Spec: spec})
			if len(c.Notes) != len(tc.want) {
				t.Errorf("notes %q, want %d", c.Notes, len(tc.want))
			}
			if err := contains(strings.Join(c.Notes, "\n"), tc.want...); err != nil {
				t.Error(err)
			}
			if err := contains(Markdown(c), "## Fairness notes"); err != nil {
				t.Error(err)
			}
			if spec.Databases[0].Database.Postgres.SynchronousReplicas != nil && *spec.Databases[0].Database.Postgres.SynchronousReplicas == 0 &&
				c.Databases[0].Deployment != "PostgreSQL, 3 instances, asynchronous" {
				t.Errorf("deployment %q", c.Databases[0].Deployment)
			}
			if err := contains(Markdown(c), "## Fairness notes"); err != nil {
				t.Error(err)
			}
		})
	}
}

// 16 databases × 10 repeats fit the ConfigMap (1 MiB) with room to spare: the comparison carries each
// run's result step, never its steps or histograms (those stay in the runs' own reports).
func TestComparisonFitsAConfigMap(t *testing.T) {
	spec := benchv1.BenchmarkSuiteSpec{Repeats: 10, Workload: benchv1.WorkloadSpec{Warehouses: 100000}}
	var runs []benchv1.SuiteRunRecord
	for d := range 16 {
		name := fmt.Sprintf("database-name-%02d", d)
		spec.Databases = append(spec.Databases, benchv1.SuiteDatabase{Name: name, Database: withResources(pg(3, 2, "remote_apply"), "8", "32Gi")})
	}
	for repeat := int32(1); repeat <= 10; repeat++ {
		for _, db := range spec.Databases {
			r := succeeded(fmt.Sprintf("a-suite-name-of-16-%s-%d", db.Name, repeat), db.Name, repeat, 99999, 97.123456789)
			for _, tx := range benchv1.Transactions {
				r.Result.Latency[tx] = r.Result.Latency[benchv1.NewOrder]
			}
			r.StartTime, r.CompletionTime = &metav1.Time{Time: time.Now()}, &metav1.Time{Time: time.Now()}
			runs = append(runs, r)
		}
	}
	c := mustCompare(Input{Suite: "a-suite-name-of-16", Namespace: "namespace", Spec: spec, Runs: runs, Generated: time.Now()})
	body, err := JSON(c)
	if err != nil {
		t.Fatal(err)
	}
	size := len(body) + len(Markdown(c))
	t.Logf("comparison.json %d bytes, comparison.md %d bytes", len(body), size-len(body))
	if size > 512<<10 {
		t.Errorf("comparison of 16 databases × 10 repeats is %d bytes: too close to the ConfigMap's 1 MiB", size)
	}
	var decoded Comparison
	if err := json.Unmarshal(body, &decoded); err != nil || decoded.SchemaVersion != SchemaVersion || len(decoded.Runs) != 160 || decoded.Runs[0].Report == "" {
		t.Errorf("comparison.json does not round-trip: %v", err)
	}
}

func contains(s string, parts ...string) error {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return fmt.Errorf("%q\ndoes not contain %q", s, p)
		}
	}
	return nil
}

// Single short runs with few New-Orders: the ratios between them are within counting noise, and
// the comparison says by how much (the local demo's figures: 2 warehouses, one minute).
func TestPrecisionNote(t *testing.T) {
	spec := study()
	spec.Workload.Duration = &metav1.Duration{Duration: time.Minute}
	c := mustCompare(Input{Suite: "s", Namespace: "n", Spec: spec, Runs: []benchv1.SuiteRunRecord{
		succeeded("s-pg-1", "pg", 1, 2, 128.27), succeeded("s-ydb-1", "ydb", 1, 2, 93.29), succeeded("s-crdb-1", "crdb", 1, 2, 77.75),
	}})
	want := "precision: counting noise alone moves tpmC by pg ±17 % (about 33 New-Orders a step, 1 run); ydb ±20 % (about 24 New-Orders a step, 1 run); crdb ±22 % (about 20 New-Orders a step, 1 run)"
	if err := contains(strings.Join(c.Notes, "\n"), want); err != nil {
		t.Error(err)
	}
	// Three runs each give confidence intervals: no note.
	spec.Repeats = 3
	var runs []benchv1.SuiteRunRecord
	for r := int32(1); r <= 3; r++ {
		for _, db := range []string{"pg", "ydb", "crdb"} {
			runs = append(runs, succeeded(fmt.Sprintf("s-%s-%d", db, r), db, r, 2, 100))
		}
	}
	if c := mustCompare(Input{Suite: "s", Namespace: "n", Spec: spec, Runs: runs}); strings.Contains(strings.Join(c.Notes, "\n"), "precision") {
		t.Errorf("notes %q with 3 runs each", c.Notes)
	}
}

func TestP90PointsLeaveOutIntervalsWithoutCompletions(t *testing.T) {
	col := &snapshot.CompactColumns{Completed: []int64{5, 0, 3, 0}, P90: []int64{40_000, 0, 90_000, 0}}
	got := p90Points([]int{0, 1, 2, 3}, col, func(i int) float64 { return float64(i) }, maxSeriesPoints)
	want := []point{{X: 0, Y: 40}, {X: 2, Y: 90}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("points %+v, want %+v (no point where nothing completed)", got, want)
	}
}
