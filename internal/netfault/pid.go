package netfault

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PodPID finds a process of the pod with uid among those /proc shows (the injector shares the
// host's process namespace): one whose cgroup path names the pod, as the kubelet's cgroupfs
// (…/pod<uid>/…) and systemd (…-pod<uid with _>.slice/…) drivers write it. Every container of a
// pod shares its network namespace; the oldest process is taken (the pod's sandbox, which lives
// as long as the pod), not one that may exit before the namespace is entered (a probe, a backend).
func PodPID(proc, uid string) (int, error) {
	if uid == "" {
		return 0, fmt.Errorf("no pod uid")
	}
	needles := []string{"pod" + uid, "pod" + strings.ReplaceAll(uid, "-", "_")}
	dirs, err := os.ReadDir(proc)
	if err != nil {
		return 0, err
	}
	best, bestStart := 0, uint64(0)
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 1 {
			continue
		}
		if !cgroupNames(filepath.Join(proc, d.Name(), "cgroup"), needles) {
			continue
		}
		start, ok := startTime(filepath.Join(proc, d.Name(), "stat"))
		if ok && (best == 0 || start < bestStart) {
			best, bestStart = pid, start
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("no process of pod %s in %s: is the pod on this node and running?", uid, proc)
	}
	return best, nil
}

// startTime is a process's start time in clock ticks since boot (/proc/PID/stat, field 22).
func startTime(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	// The command (field 2) is in parentheses and may hold spaces: count from the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 { // fields 3.. follow the ')'; starttime is field 22, index 19 here
		return 0, false
	}
	v, err := strconv.ParseUint(fields[19], 10, 64)
	return v, err == nil
}

func cgroupNames(path string, needles []string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		for _, n := range needles {
			if strings.Contains(sc.Text(), n) {
				return true
			}
		}
	}
	return false
}
