package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpcc-operator/tpcc-operator/internal/storageprobe"
)

func TestStorageProbeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--dir: empty"},
		{[]string{"--dir", t.TempDir(), "--block-size", "100"}, "--block-size 100"},
		{[]string{"--dir", t.TempDir(), "--runtime", "10ms"}, "--runtime 10ms"},
		{[]string{"--dir", t.TempDir(), "--fio", "/nonexistent/fio"}, "--fio /nonexistent/fio"},
	} {
		var stdout, stderr bytes.Buffer
		t.Setenv("PATH", t.TempDir()) // no fio to fall back to
		if code := dispatch(context.Background(), append([]string{"storage-probe"}, tc.args...), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("storage-probe %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// The probe with the fio hack/images.sh builds into the client image (TPCC_FIO, else its cache):
// a result on a real volume, in the termination file too, and the probe's file removed.
func TestStorageProbeWithFio(t *testing.T) {
	fio := os.Getenv("TPCC_FIO")
	if fio == "" {
		home, _ := os.UserHomeDir()
		fio = filepath.Join(home, ".cache", "tpcc-operator", "fio-3.33", "fio")
	}
	if _, err := os.Stat(fio); err != nil {
		t.Skipf("no fio at %s (hack/images.sh project builds it; or set TPCC_FIO): %v", fio, err)
	}
	dir, term := t.TempDir(), filepath.Join(t.TempDir(), "termination-log")
	var stdout, stderr bytes.Buffer
	if code := dispatch(context.Background(), []string{"storage-probe", "--dir", dir, "--fio", fio, "--runtime", "1s", "--file-size", "1048576", "--termination-log", term}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	body, err := os.ReadFile(term)
	if err != nil {
		t.Fatal(err)
	}
	var r storageprobe.Result
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	if r.Tool != "fio-3.33" || r.BlockSize != 8192 || r.Syncs == 0 || r.SyncP50 <= 0 || r.SyncP99 < r.SyncP50 || r.WritesPerSecond <= 0 || r.BytesPerSecond <= 0 {
		t.Errorf("result %+v", r)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the probe left %d entries in --dir", len(left))
	}
}
