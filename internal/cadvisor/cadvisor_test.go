package cadvisor

import (
	"strings"
	"testing"
	"time"
)

// A scrape shaped as the kubelet serves it (cAdvisor v0.52, containerd, cgroup v2): per-container
// and pod-level disk series per device, pod-level network series per interface, other namespaces
// and pods, comments, and a label value with an escaped quote.
const scrape = `# HELP container_fs_reads_bytes_total Cumulative count of bytes read
# TYPE container_fs_reads_bytes_total counter
container_fs_reads_bytes_total{container="postgres",device="/dev/sda",id="/kubepods/burstable/pod1/c1",image="pg:18",name="c1",namespace="bench",pod="run-db-1"} 4096 1700000000000
container_fs_reads_bytes_total{container="bootstrap",device="/dev/sda",id="/kubepods/burstable/pod1/c0",image="pg:18",name="c0",namespace="bench",pod="run-db-1"} 1024 1700000000000
container_fs_writes_bytes_total{container="postgres",device="/dev/sda",id="/kubepods/burstable/pod1/c1",image="pg:18",name="c1",namespace="bench",pod="run-db-1"} 1e+06 1700000000000
container_fs_writes_bytes_total{container="postgres",device="/dev/sdb",id="/kubepods/burstable/pod1/c1",image="pg:18",name="c1",namespace="bench",pod="run-db-1"} 500000 1700000000000
container_fs_reads_total{container="postgres",device="/dev/sda",id="x",image="pg",name="c1",namespace="bench",pod="run-db-1"} 10
container_fs_writes_total{container="postgres",device="/dev/sda",id="x",image="pg",name="c1",namespace="bench",pod="run-db-1"} 200
container_fs_writes_bytes_total{container="",device="/dev/sda",id="/kubepods/burstable/pod2",image="",name="",namespace="bench",pod="run-step-0-0-abc"} 7000
container_fs_writes_bytes_total{container="tpcc",device="/dev/sda",id="/kubepods/burstable/pod2/c",image="tpcc",name="c",namespace="bench",pod="run-step-0-0-abc"} 6000
container_network_receive_bytes_total{container="",id="/kubepods/burstable/pod1",image="",interface="eth0",name="",namespace="bench",pod="run-db-1"} 2e6
container_network_receive_bytes_total{container="",id="/kubepods/burstable/pod1",image="",interface="lo",name="",namespace="bench",pod="run-db-1"} 9e9
container_network_transmit_bytes_total{container="",id="/kubepods/burstable/pod1",image="",interface="eth0",name="",namespace="bench",pod="run-db-1"} 3e6
container_network_receive_packets_total{container="",id="/kubepods/burstable/pod1",image="",interface="eth0",name="",namespace="bench",pod="run-db-1"} 1500
container_network_transmit_packets_total{container="",id="/kubepods/burstable/pod1",image="",interface="eth0",name="",namespace="bench",pod="run-db-1"} 1700
container_network_transmit_bytes_total{container="POD",id="/kubepods/burstable/pod3/sandbox",image="pause",interface="eth0",name="x",namespace="bench",pod="run-step-0-0-abc"} 800
container_fs_reads_bytes_total{container="postgres",device="/dev/sda",id="y",image="pg",name="c9",namespace="other",pod="run-db-1"} 99999
container_fs_reads_bytes_total{container="app",device="/dev/sda",id="z",image="a\"b",name="c8",namespace="bench",pod="someone-else"} 77
container_cpu_usage_seconds_total{container="postgres",cpu="total",id="x",image="pg",name="c1",namespace="bench",pod="run-db-1"} 12.5
`

func TestParse(t *testing.T) {
	got, err := Parse([]byte(scrape), "bench", map[string]bool{"run-db-1": true, "run-step-0-0-abc": true})
	if err != nil {
		t.Fatal(err)
	}
	db := got["run-db-1"]
	want := Counters{DiskReadBytes: 5120, DiskWriteBytes: 1.5e6, DiskReads: 10, DiskWrites: 200, NetReceiveBytes: 2e6, NetTransmitBytes: 3e6,
		NetReceivePackets: 1500, NetTransmitPackets: 1700, Disk: true, Net: true,
		At: time.UnixMilli(1700000000000)} // the newest timestamp of the series read
	if db != want {
		t.Errorf("database pod: %+v\nwant %+v (containers and devices summed, loopback and other namespaces left out)", db, want)
	}
	client := got["run-step-0-0-abc"]
	if client.DiskWriteBytes != 7000 || client.NetTransmitBytes != 800 || !client.Disk || !client.Net || !client.At.IsZero() {
		t.Errorf("client pod: %+v, want the pod-level disk series (not pod + container) and the sandbox's network", client)
	}
	if _, ok := got["someone-else"]; ok || len(got) != 2 {
		t.Errorf("pods %v, want only the two asked for", got)
	}
	for _, bad := range []string{
		`container_fs_reads_total{namespace="bench",pod="run-db-1" 5`,
		`container_fs_reads_total{namespace="bench",pod="run-db-1"} x`,
		`container_fs_reads_total{namespace="bench",pod="run-db-1"}`,
		`container_fs_reads_total{namespace="bench",pod="run-db-1"} 5 soon`,
	} {
		if _, err := Parse([]byte(bad), "bench", map[string]bool{"run-db-1": true}); err == nil || !strings.Contains(err.Error(), "cadvisor") {
			t.Errorf("Parse(%q) = %v, want an error", bad, err)
		}
	}
}

func TestRate(t *testing.T) {
	prev := Counters{DiskReadBytes: 1000, DiskWriteBytes: 1e6, DiskReads: 10, DiskWrites: 100, NetReceiveBytes: 5e5, NetTransmitBytes: 1e6, NetReceivePackets: 100, NetTransmitPackets: 200, Disk: true, Net: true}
	cur := Counters{DiskReadBytes: 21000, DiskWriteBytes: 11e6, DiskReads: 30, DiskWrites: 600, NetReceiveBytes: 55e5, NetTransmitBytes: 11e6, NetReceivePackets: 1100, NetTransmitPackets: 2200, Disk: true, Net: true}
	r, ok := Rate(prev, cur, 5*time.Second)
	want := Rates{DiskReadBytes: 4000, DiskWriteBytes: 2e6, DiskReads: 4, DiskWrites: 100, NetReceiveBytes: 1e6, NetTransmitBytes: 2e6, NetReceivePackets: 200, NetTransmitPackets: 400, Disk: true, Net: true}
	if !ok || r != want {
		t.Errorf("Rate = %+v, %v; want %+v", r, ok, want)
	}
	restarted := cur
	restarted.DiskWriteBytes = 10
	if _, ok := Rate(cur, restarted, 5*time.Second); ok {
		t.Error("a counter that went back gave a rate")
	}
	if _, ok := Rate(prev, cur, 0); ok {
		t.Error("no time between readings gave a rate")
	}
	diskOnly := Counters{DiskWrites: 5, Disk: true}
	if r, ok := Rate(Counters{Disk: true}, diskOnly, time.Second); !ok || r.Net || r.DiskWrites != 5 {
		t.Errorf("disk-only: %+v %v", r, ok)
	}
}
