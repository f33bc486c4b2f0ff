package ydb

import (
	"encoding/json"
	"fmt"
	"sort"

	"sigs.k8s.io/yaml"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Domain is the YDB domain (the root of every database path).
const Domain = "Root"

// staticGroup places the nine (mirror-3-dc), eight (block-4-2) or one (none) disks of YDB's static
// storage group onto storage nodes. mirror-3-dc is three rings (data centres) of three fail domains;
// with fewer than nine nodes each of the first three nodes is one ring and holds three drives.
type staticGroup struct {
	rings         [][]vdisk
	drivesPerNode int
}

type vdisk struct {
	node  int // 1-based node id
	drive int // 0-based drive index on that node
}

func placeStaticGroup(erasure benchv1.Erasure, nodes int) (staticGroup, error) {
	switch erasure {
	case benchv1.ErasureNone:
		if nodes < 1 {
			return staticGroup{}, fmt.Errorf("erasure none needs at least 1 storage node, got %d", nodes)
		}
		return staticGroup{rings: [][]vdisk{{{node: 1}}}, drivesPerNode: 1}, nil
	case benchv1.ErasureBlock42:
		if nodes < 8 {
			return staticGroup{}, fmt.Errorf("erasure block-4-2 needs at least 8 storage nodes, got %d", nodes)
		}
		ring := make([]vdisk, 8)
		for i := range ring {
			ring[i] = vdisk{node: i + 1}
		}
		return staticGroup{rings: [][]vdisk{ring}, drivesPerNode: 1}, nil
	case benchv1.ErasureMirror3DC:
		if nodes < 3 {
			return staticGroup{}, fmt.Errorf("erasure mirror-3-dc needs at least 3 storage nodes, got %d", nodes)
		}
		g := staticGroup{rings: make([][]vdisk, 3), drivesPerNode: 1}
		if nodes < 9 {
			g.drivesPerNode = 3
		}
		for r := range 3 {
			for f := range 3 {
				if nodes >= 9 {
					g.rings[r] = append(g.rings[r], vdisk{node: r*3 + f + 1})
				} else {
					g.rings[r] = append(g.rings[r], vdisk{node: r + 1, drive: f})
				}
			}
		}
		return g, nil
	default:
		return staticGroup{}, fmt.Errorf("unknown erasure %q", erasure)
	}
}

// drivePath is where ydb-operator exposes the i-th dataStore volume (a block device) in a pod.
func drivePath(i int) string { return fmt.Sprintf("/dev/kikimr_ssd_%02d", i) }

// stateStorageRing is the static state storage: up to nine nodes, an odd number of them selected.
func stateStorageRing(nodes int) (members []int, ntoSelect int) {
	n := min(nodes, 9)
	for i := 1; i <= n; i++ {
		members = append(members, i)
	}
	ntoSelect = min(n, 5)
	if ntoSelect%2 == 0 {
		ntoSelect--
	}
	return members, ntoSelect
}

// HardLimitSetting names YDB's memory limit in the configuration and in status.database.sizing.
const HardLimitSetting = "memory_controller_config.hard_limit_bytes"

// StorageConfiguration renders the static configuration ydb-operator requires in Storage
// spec.configuration for the erasure and node count. A hardLimit > 0 sets the memory controller's
// hard limit (memory_controller_config.hard_limit_bytes) of every node, storage and database:
// ydb-operator builds the database nodes' configuration on the Storage's.
//
// overrides are the run's ydb.config sections, merged over what is rendered: a map merges key by
// key, any other value replaces the rendered one (admission keeps the sections derived from the
// erasure and nodes out of it).
func StorageConfiguration(erasure benchv1.Erasure, nodes int, hardLimit int64, overrides map[string]benchv1.YDBConfigSection) (string, int, error) {
	group, err := placeStaticGroup(erasure, nodes)
	if err != nil {
		return "", 0, err
	}
	var drives []map[string]any
	for i := range group.drivesPerNode {
		drives = append(drives, map[string]any{"path": drivePath(i), "type": "SSD"})
	}
	var rings []map[string]any
	for _, ring := range group.rings {
		var domains []map[string]any
		for _, d := range ring {
			domains = append(domains, map[string]any{"vdisk_locations": []map[string]any{{
				"node_id": d.node, "pdisk_category": "SSD", "path": drivePath(d.drive),
			}}})
		}
		rings = append(rings, map[string]any{"fail_domains": domains})
	}
	members, ntoSelect := stateStorageRing(nodes)
	channel := map[string]any{"erasure_species": string(erasure), "pdisk_category": 1, "storage_pool_kind": "ssd"}
	config := map[string]any{
		"static_erasure": string(erasure),
		"host_configs":   []map[string]any{{"host_config_id": 1, "drive": drives}},
		"grpc_config":    map[string]any{"port": GRPCPort},
		"actor_system_config": map[string]any{
			"use_auto_config": true, "node_type": "STORAGE",
		},
		"domains_config": map[string]any{
			"domain": []map[string]any{{
				"name": Domain,
				"storage_pool_types": []map[string]any{{
					"kind": "ssd",
					"pool_config": map[string]any{
						"box_id": 1, "erasure_species": string(erasure), "kind": "ssd", "vdisk_kind": "Default",
						"pdisk_filter": []map[string]any{{"property": []map[string]any{{"type": "SSD"}}}},
					},
				}},
			}},
			"state_storage": []map[string]any{{"ssid": 1, "ring": map[string]any{"node": members, "nto_select": ntoSelect}}},
		},
		"blob_storage_config": map[string]any{"service_set": map[string]any{
			"groups": []map[string]any{{"erasure_species": string(erasure), "rings": rings}},
		}},
		"channel_profile_config": map[string]any{"profile": []map[string]any{{
			"profile_id": 0, "channel": []map[string]any{channel, channel, channel},
		}}},
	}
	if hardLimit > 0 {
		config["memory_controller_config"] = map[string]any{"hard_limit_bytes": hardLimit}
	}
	merged, err := MergeConfig(config, overrides)
	if err != nil {
		return "", 0, err
	}
	out, err := yaml.Marshal(merged)
	if err != nil {
		return "", 0, err
	}
	return string(out), group.drivesPerNode, nil
}

// MergeConfig merges ydb.config's sections over a rendered configuration: maps key by key, any
// other value replacing the rendered one. The rendered configuration is not changed.
func MergeConfig(base map[string]any, overrides map[string]benchv1.YDBConfigSection) (map[string]any, error) {
	// Round-trip the rendered configuration through JSON, so both sides are plain JSON values.
	raw, err := json.Marshal(base)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	for _, name := range sortedSections(overrides) {
		var v any
		if err := json.Unmarshal(overrides[name].Raw, &v); err != nil {
			return nil, fmt.Errorf("ydb.config.%s: %w", name, err)
		}
		out[name] = mergeValue(out[name], v)
	}
	return out, nil
}

func mergeValue(base, override any) any {
	b, bok := base.(map[string]any)
	o, ook := override.(map[string]any)
	if !bok || !ook {
		return override
	}
	for k, v := range o {
		b[k] = mergeValue(b[k], v)
	}
	return b
}

// ConfigLeaves flattens ydb.config's sections into dotted paths and their values as JSON
// (table_service_config.enable_oltp_sink: true), for status.environment.tuning.
func ConfigLeaves(overrides map[string]benchv1.YDBConfigSection) (map[string]string, error) {
	out := map[string]string{}
	var walk func(path string, v any) error
	walk = func(path string, v any) error {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			for k, child := range m {
				if err := walk(path+"."+k, child); err != nil {
					return err
				}
			}
			return nil
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out[path] = string(raw)
		return nil
	}
	for _, name := range sortedSections(overrides) {
		var v any
		if err := json.Unmarshal(overrides[name].Raw, &v); err != nil {
			return nil, fmt.Errorf("ydb.config.%s: %w", name, err)
		}
		if err := walk(name, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func sortedSections(m map[string]benchv1.YDBConfigSection) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
