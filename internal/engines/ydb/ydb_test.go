package ydb

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines"
)

func TestStaticGroupPlacement(t *testing.T) {
	cases := []struct {
		erasure    benchv1.Erasure
		nodes      int
		wantRings  int
		wantDisks  int
		wantDrives int
		wantNodes  int // distinct nodes holding the static group
		wantErr    string
	}{
		{benchv1.ErasureNone, 1, 1, 1, 1, 1, ""},
		{benchv1.ErasureBlock42, 8, 1, 8, 1, 8, ""},
		{benchv1.ErasureBlock42, 12, 1, 8, 1, 8, ""},
		{benchv1.ErasureMirror3DC, 3, 3, 9, 3, 3, ""},
		{benchv1.ErasureMirror3DC, 5, 3, 9, 3, 3, ""},
		{benchv1.ErasureMirror3DC, 9, 3, 9, 1, 9, ""},
		{benchv1.ErasureBlock42, 7, 0, 0, 0, 0, "at least 8"},
		{benchv1.ErasureMirror3DC, 2, 0, 0, 0, 0, "at least 3"},
		{"mirror-2", 3, 0, 0, 0, 0, "unknown erasure"},
	}
	for _, tc := range cases {
		g, err := placeStaticGroup(tc.erasure, tc.nodes)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s/%d: err = %v, want %q", tc.erasure, tc.nodes, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s/%d: %v", tc.erasure, tc.nodes, err)
		}
		disks, nodes, locations := 0, map[int]bool{}, map[vdisk]bool{}
		for _, ring := range g.rings {
			for _, d := range ring {
				disks++
				nodes[d.node] = true
				if d.node < 1 || d.node > tc.nodes || d.drive >= g.drivesPerNode || locations[d] {
					t.Errorf("%s/%d: bad or duplicate vdisk %+v", tc.erasure, tc.nodes, d)
				}
				locations[d] = true
			}
		}
		if len(g.rings) != tc.wantRings || disks != tc.wantDisks || g.drivesPerNode != tc.wantDrives || len(nodes) != tc.wantNodes {
			t.Errorf("%s/%d: rings=%d disks=%d drives=%d nodes=%d, want %d %d %d %d", tc.erasure, tc.nodes,
				len(g.rings), disks, g.drivesPerNode, len(nodes), tc.wantRings, tc.wantDisks, tc.wantDrives, tc.wantNodes)
		}
		if tc.erasure == benchv1.ErasureMirror3DC {
			for r, ring := range g.rings { // a ring is a data centre: it shares no node with another ring
				for _, d := range ring {
					for r2, other := range g.rings {
						for _, d2 := range other {
							if r != r2 && d.node == d2.node {
								t.Errorf("%d nodes: node %d is in rings %d and %d", tc.nodes, d.node, r, r2)
							}
						}
					}
				}
			}
		}
	}
}

func TestStateStorageRingSelectsAnOddMajority(t *testing.T) {
	for nodes, want := range map[int][2]int{1: {1, 1}, 3: {3, 3}, 4: {4, 3}, 8: {8, 5}, 9: {9, 5}, 20: {9, 5}} {
		members, nto := stateStorageRing(nodes)
		if len(members) != want[0] || nto != want[1] {
			t.Errorf("%d nodes: %d members, nto_select %d; want %v", nodes, len(members), nto, want)
		}
	}
}

func TestStorageConfigurationIsValidYAML(t *testing.T) {
	config, drives, err := StorageConfiguration(benchv1.ErasureMirror3DC, 3, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		StaticErasure string `json:"static_erasure"`
		HostConfigs   []struct {
			Drive []struct{ Path string } `json:"drive"`
		} `json:"host_configs"`
	}
	if err := yaml.Unmarshal([]byte(config), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed.StaticErasure != "mirror-3-dc" || len(parsed.HostConfigs) != 1 || len(parsed.HostConfigs[0].Drive) != drives || drives != 3 {
		t.Errorf("parsed = %+v, drives %d", parsed, drives)
	}
}

func TestDesiredAndReadiness(t *testing.T) {
	run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "y"},
		Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EngineYDB}}}
	b := Backend{}
	objects, err := b.Desired(run)
	if err != nil {
		t.Fatal(err)
	}
	storage, database := objects[0], objects[1]
	if dataStore, _, _ := unstructured.NestedSlice(storage.Object, "spec", "dataStore"); len(dataStore) != 3 {
		t.Errorf("dataStore has %d volumes, want one per drive (3)", len(dataStore))
	}
	if ref, _, _ := unstructured.NestedString(database.Object, "spec", "storageClusterRef", "name"); ref != storage.GetName() {
		t.Errorf("database refers to storage %q, want %q", ref, storage.GetName())
	}
	state := func(s string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"state": s}}}
	}
	refs := b.Observed(run)
	for _, tc := range []struct {
		storage, database string
		ready             bool
		reason            string
	}{
		{"", "", false, "StorageMissing"},
		{"Provisioning", "", false, "StorageNotReady"},
		{"Ready", "", false, "DatabaseMissing"},
		{"Ready", "Initializing", false, "DatabaseNotReady"},
		{"Ready", "Ready", true, "DatabaseReady"},
	} {
		observed := map[engines.Ref]*unstructured.Unstructured{}
		if tc.storage != "" {
			observed[refs[0]] = state(tc.storage)
		}
		if tc.database != "" {
			observed[refs[1]] = state(tc.database)
		}
		if got := b.Readiness(run, observed); got.Ready != tc.ready || got.Reason != tc.reason {
			t.Errorf("storage %q database %q: %+v, want %v %s", tc.storage, tc.database, got, tc.ready, tc.reason)
		}
	}
	if c := b.Connection(run); c.URL != "grpc://y-db-grpc.bench:2135/Root/y-db" || c.Engine != "ydb" {
		t.Errorf("connection = %+v", c)
	}
}

// With memory, every node's memory controller gets it as its hard limit through the Storage's
// configuration; without, YDB's own default stands.
func TestDesiredSizing(t *testing.T) {
	for _, tc := range []struct {
		resources corev1.ResourceRequirements
		want      int64 // 0: no memory_controller_config
	}{
		{corev1.ResourceRequirements{}, 0},
		{corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")}}, 8 << 30},
		{corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("12Gi")}}, 12 << 30},
	} {
		run := &benchv1.BenchmarkRun{ObjectMeta: metav1.ObjectMeta{Namespace: "bench", Name: "y"},
			Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EngineYDB,
				YDB: &benchv1.YDBSpec{Erasure: benchv1.ErasureMirror3DC, StorageNodes: 3, DatabaseNodes: 3, Resources: tc.resources}}}}
		objects, err := Backend{}.Desired(run)
		if err != nil {
			t.Fatal(err)
		}
		config, _, _ := unstructured.NestedString(objects[0].Object, "spec", "configuration")
		var parsed struct {
			Memory *struct {
				HardLimitBytes int64 `json:"hard_limit_bytes"`
			} `json:"memory_controller_config"`
		}
		if err := yaml.Unmarshal([]byte(config), &parsed); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.want == 0 && parsed.Memory != nil:
			t.Errorf("no memory: configuration has memory_controller_config %+v", parsed.Memory)
		case tc.want != 0 && (parsed.Memory == nil || parsed.Memory.HardLimitBytes != tc.want):
			t.Errorf("memory_controller_config = %+v, want hard_limit_bytes %d", parsed.Memory, tc.want)
		}
		sizing := Backend{}.Sizing(run)
		if (sizing == nil) != (tc.want == 0) || (sizing != nil && sizing.Settings[HardLimitSetting] != strconv.FormatInt(tc.want, 10)) {
			t.Errorf("sizing = %+v, want hard limit %d", sizing, tc.want)
		}
	}
}

// ydb.config merges over the rendered configuration: maps key by key (the sized hard limit stays
// beside the run's other memory key), other values replaced; the rendered numbers stay integers.
func TestStorageConfigurationMergesYDBConfig(t *testing.T) {
	section := func(raw string) benchv1.YDBConfigSection {
		return benchv1.YDBConfigSection{JSON: apiextensionsv1.JSON{Raw: []byte(raw)}}
	}
	overrides := map[string]benchv1.YDBConfigSection{
		"memory_controller_config": section(`{"shared_cache_min_percent": 30}`),
		"table_service_config":     section(`{"enable_oltp_sink": true, "resource_manager": {"query_memory_limit": 1073741824}}`),
		"actor_system_config":      section(`{"use_auto_config": false}`),
	}
	config, _, err := StorageConfiguration(benchv1.ErasureMirror3DC, 3, 8589934592, overrides)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"hard_limit_bytes: 8589934592", "shared_cache_min_percent: 30", "enable_oltp_sink: true",
		"query_memory_limit: 1073741824", "use_auto_config: false", "node_type: STORAGE", "static_erasure: mirror-3-dc"} {
		if !strings.Contains(config, want) {
			t.Errorf("configuration lacks %q:\n%s", want, config)
		}
	}
	leaves, err := ConfigLeaves(overrides)
	if err != nil {
		t.Fatal(err)
	}
	if leaves["table_service_config.resource_manager.query_memory_limit"] != "1073741824" || leaves["actor_system_config.use_auto_config"] != "false" || len(leaves) != 4 {
		t.Errorf("leaves = %v", leaves)
	}
	run := &benchv1.BenchmarkRun{Spec: benchv1.BenchmarkRunSpec{Database: benchv1.DatabaseSpec{Engine: benchv1.EngineYDB,
		YDB: &benchv1.YDBSpec{Config: overrides, Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("8Gi")}}}}}}
	tuning := Backend{}.Tuning(run)
	if len(tuning) != 5 {
		t.Fatalf("tuning = %+v, want the 4 leaves and the sized hard limit", tuning)
	}
	for _, s := range tuning {
		if s.Note == "" || s.Effective != "" {
			t.Errorf("%s: YDB settings cannot be read back, want a note and no effective value: %+v", s.Name, s)
		}
	}
}
