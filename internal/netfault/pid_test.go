package netfault

import (
	"os"
	"path/filepath"
	"testing"
)

// A fake /proc: the pod's processes under both cgroup drivers' spellings, a process of another
// pod, and one whose stat cannot be read. The oldest of the pod's is taken, whatever /proc's order.
func TestPodPIDTakesThePodsOldestProcess(t *testing.T) {
	proc := t.TempDir()
	uid := "3f1c-77ab"
	for _, p := range []struct {
		pid, cgroup, stat string
	}{
		{"1000", "0::/kubepods/burstable/pod3f1c-77ab/ctr1", "1000 (postgres: walreceiver) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 9000 0"},
		{"999", "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod3f1c_77ab.slice/cri-x", "999 (pause) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 4200 0"},
		{"12", "0::/kubepods/pod3f1c-77ab/probe", ""}, // exited: its stat is gone
		{"77", "0::/kubepods/podffff-0000/ctr", "77 (other) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 1 0"},
	} {
		dir := filepath.Join(proc, p.pid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "cgroup"), []byte(p.cgroup+"\n"), 0o644)
		if p.stat != "" {
			_ = os.WriteFile(filepath.Join(dir, "stat"), []byte(p.stat+"\n"), 0o644)
		}
	}
	pid, err := PodPID(proc, uid)
	if err != nil || pid != 999 {
		t.Fatalf("PodPID = %d, %v: want 999, the pod's oldest process (its sandbox)", pid, err)
	}
	if _, err := PodPID(proc, "no-such-pod"); err == nil {
		t.Error("a pod without a process was found")
	}
}
