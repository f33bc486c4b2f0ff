// Package cadvisor reads the disk and network counters of pods from a kubelet's cAdvisor metrics
// (GET /api/v1/nodes/NODE/proxy/metrics/cadvisor, Prometheus text format) and turns two readings
// into per-second rates. It is pure: the operator fetches the text, this package reads it.
package cadvisor

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Counters are one pod's cumulative disk and network counters.
type Counters struct {
	DiskReadBytes, DiskWriteBytes         float64
	DiskReads, DiskWrites                 float64
	NetReceiveBytes, NetTransmitBytes     float64
	NetReceivePackets, NetTransmitPackets float64
	// Disk and Net say the pod reported those counters at all.
	Disk, Net bool
	// At is when cAdvisor last updated the counters read (the newest of their samples' timestamps;
	// zero when the scrape gives none). cAdvisor refreshes a container's statistics every 10–15 s,
	// not per scrape: a rate is the change between two updates over the time between them, never
	// over the time between two scrapes (two scrapes a second apart across one update would charge
	// 15 s of traffic to one second).
	At time.Time `json:"at,omitzero"`
}

// The metrics read, and where each goes. cAdvisor reports the disk counters per container and
// block device, the network counters per pod (its network namespace) and interface.
var metrics = map[string]func(c *Counters, v float64){
	"container_fs_reads_bytes_total":           func(c *Counters, v float64) { c.DiskReadBytes += v; c.Disk = true },
	"container_fs_writes_bytes_total":          func(c *Counters, v float64) { c.DiskWriteBytes += v; c.Disk = true },
	"container_fs_reads_total":                 func(c *Counters, v float64) { c.DiskReads += v; c.Disk = true },
	"container_fs_writes_total":                func(c *Counters, v float64) { c.DiskWrites += v; c.Disk = true },
	"container_network_receive_bytes_total":    func(c *Counters, v float64) { c.NetReceiveBytes += v; c.Net = true },
	"container_network_transmit_bytes_total":   func(c *Counters, v float64) { c.NetTransmitBytes += v; c.Net = true },
	"container_network_receive_packets_total":  func(c *Counters, v float64) { c.NetReceivePackets += v; c.Net = true },
	"container_network_transmit_packets_total": func(c *Counters, v float64) { c.NetTransmitPackets += v; c.Net = true },
}

// sample is one series of one metric.
type sample struct {
	metric, pod, container, iface string
	value                         float64
	at                            time.Time // the sample's timestamp; zero without one
}

// Parse reads the counters of the named pods of namespace from a cAdvisor scrape. A pod's disk
// counters are its containers' sums, or its pod-level cgroup's (container "") when cAdvisor
// reports that, never both: the pod cgroup already holds its containers' I/O. Its network
// counters are its pod-level series' (container ""; where there are none, the sandbox's, "POD"),
// summed over interfaces except the loopback. Lines of other namespaces and pods are skipped without being parsed.
func Parse(scrape []byte, namespace string, pods map[string]bool) (map[string]Counters, error) {
	nsLabel := `namespace="` + namespace + `"`
	byPod := map[string][]sample{}
	sc := bufio.NewScanner(bytes.NewReader(scrape))
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' || !bytes.Contains(line, []byte(nsLabel)) {
			continue
		}
		brace := bytes.IndexByte(line, '{')
		if brace < 0 {
			continue
		}
		name := string(line[:brace])
		if _, ok := metrics[name]; !ok {
			continue
		}
		labels, rest, err := parseLabels(string(line[brace+1:]))
		if err != nil {
			return nil, fmt.Errorf("cadvisor: %s: %w", name, err)
		}
		if labels["namespace"] != namespace || !pods[labels["pod"]] {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("cadvisor: %s of pod %s has no value", name, labels["pod"])
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("cadvisor: %s of pod %s: %w", name, labels["pod"], err)
		}
		var at time.Time
		if len(fields) > 1 { // the exposition format's optional timestamp, in milliseconds
			ms, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("cadvisor: %s of pod %s: timestamp: %w", name, labels["pod"], err)
			}
			at = time.UnixMilli(ms)
		}
		byPod[labels["pod"]] = append(byPod[labels["pod"]], sample{metric: name, pod: labels["pod"], container: labels["container"], iface: labels["interface"], value: v, at: at})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cadvisor: %w", err)
	}
	out := map[string]Counters{}
	for pod, samples := range byPod {
		podLevelDisk, podLevelNet := false, false
		for _, s := range samples {
			if s.container == "" {
				if strings.HasPrefix(s.metric, "container_fs_") {
					podLevelDisk = true
				} else {
					podLevelNet = true
				}
			}
		}
		netContainer := "POD" // the sandbox carries the pod's network where no pod-level series does
		if podLevelNet {
			netContainer = ""
		}
		var c Counters
		for _, s := range samples {
			switch {
			case strings.HasPrefix(s.metric, "container_fs_"):
				if (s.container == "") != podLevelDisk || s.container == "POD" {
					continue
				}
			default: // network: the pod's namespace, once: its pod-level series, else its sandbox's
				if s.container != netContainer || s.iface == "lo" {
					continue
				}
			}
			metrics[s.metric](&c, s.value)
			if s.at.After(c.At) {
				c.At = s.at
			}
		}
		out[pod] = c
	}
	return out, nil
}

// parseLabels reads `a="x",b="y"} rest` into the labels and what follows the closing brace.
func parseLabels(s string) (map[string]string, string, error) {
	labels := map[string]string{}
	i := 0
	for {
		for i < len(s) && (s[i] == ',' || s[i] == ' ') {
			i++
		}
		if i >= len(s) {
			return nil, "", fmt.Errorf("unterminated labels")
		}
		if s[i] == '}' {
			return labels, s[i+1:], nil
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 || i+eq+1 >= len(s) || s[i+eq+1] != '"' {
			return nil, "", fmt.Errorf("malformed label at %q", s[i:min(len(s), i+20)])
		}
		name := s[i : i+eq]
		j := i + eq + 2
		var v strings.Builder
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' && j+1 < len(s) {
				j++
				switch s[j] {
				case 'n':
					v.WriteByte('\n')
				default:
					v.WriteByte(s[j])
				}
				continue
			}
			v.WriteByte(s[j])
		}
		if j >= len(s) {
			return nil, "", fmt.Errorf("unterminated label value of %s", name)
		}
		labels[name] = v.String()
		i = j + 1
	}
}

// Rates are a pod's disk and network traffic per second between two readings.
type Rates struct {
	DiskReadBytes, DiskWriteBytes, DiskReads, DiskWrites                     int64
	NetReceiveBytes, NetTransmitBytes, NetReceivePackets, NetTransmitPackets int64
	Disk, Net                                                                bool
}

// Rate is the traffic per second from prev to cur, dt apart; ok false when it cannot be told (no
// time passed, or a counter went back: the pod's container restarted).
func Rate(prev, cur Counters, dt time.Duration) (Rates, bool) {
	if dt <= 0 {
		return Rates{}, false
	}
	sec := dt.Seconds()
	var back bool
	per := func(a, b float64) int64 {
		if b < a {
			back = true
			return 0
		}
		return int64((b-a)/sec + 0.5)
	}
	r := Rates{Disk: prev.Disk && cur.Disk, Net: prev.Net && cur.Net}
	if r.Disk {
		r.DiskReadBytes, r.DiskWriteBytes = per(prev.DiskReadBytes, cur.DiskReadBytes), per(prev.DiskWriteBytes, cur.DiskWriteBytes)
		r.DiskReads, r.DiskWrites = per(prev.DiskReads, cur.DiskReads), per(prev.DiskWrites, cur.DiskWrites)
	}
	if r.Net {
		r.NetReceiveBytes, r.NetTransmitBytes = per(prev.NetReceiveBytes, cur.NetReceiveBytes), per(prev.NetTransmitBytes, cur.NetTransmitBytes)
		r.NetReceivePackets, r.NetTransmitPackets = per(prev.NetReceivePackets, cur.NetReceivePackets), per(prev.NetTransmitPackets, cur.NetTransmitPackets)
	}
	if back || (!r.Disk && !r.Net) {
		return Rates{}, false
	}
	return r, true
}
