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
// pod shares its network namespace, so any of them will do.
func PodPID(proc, uid string) (int, error) {
	if uid == "" {
		return 0, fmt.Errorf("no pod uid")
	}
	needles := []string{"pod" + uid, "pod" + strings.ReplaceAll(uid, "-", "_")}
	dirs, err := os.ReadDir(proc)
	if err != nil {
		return 0, err
	}
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid <= 1 {
			continue
		}
		if cgroupNames(filepath.Join(proc, d.Name(), "cgroup"), needles) {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no process of pod %s in %s: is the pod on this node and running?", uid, proc)
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
