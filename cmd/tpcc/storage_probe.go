package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/storageprobe"
)

var storageProbeCommand = command{name: "storage-probe",
	summary: "measure a volume's small fdatasync'd writes with fio (the operator's storage calibration Jobs)", run: runStorageProbe}

// runStorageProbe is `tpcc storage-probe`: it runs fio (internal/storageprobe) on --dir and prints
// the result as JSON, also into --termination-log where the operator reads it.
func runStorageProbe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("storage-probe", stderr)
	def := storageprobe.DefaultOptions("")
	dir := fs.String("dir", "", "the folder on the volume to measure (required); fio writes one file there and it is removed after")
	fio := fs.String("fio", "/fio", "the fio binary (the client image's /fio; else found in PATH)")
	blockSize := fs.Int("block-size", def.BlockSize, "bytes per write")
	fileSize := fs.Int64("file-size", def.FileSize, "bytes of the file written over")
	runtime := fs.Duration("runtime", def.Runtime, "how long to write")
	termination := fs.String("termination-log", "", "also write the result (JSON) to this file, e.g. /dev/termination-log")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	opts := storageprobe.Options{Dir: *dir, BlockSize: *blockSize, FileSize: *fileSize, Runtime: *runtime}
	if err := opts.Validate(); err != nil {
		fmt.Fprintf(stderr, "tpcc storage-probe: --%s\n", err)
		return 2
	}
	bin := *fio
	if _, err := os.Stat(bin); err != nil {
		if found, lookErr := exec.LookPath("fio"); lookErr == nil {
			bin = found
		} else {
			fmt.Fprintf(stderr, "tpcc storage-probe: --fio %s: %v, and no fio in PATH\n", *fio, err)
			return 2
		}
	}
	report := func(r storageprobe.Result) int {
		body, _ := json.Marshal(r)
		fmt.Fprintln(stdout, string(body))
		if *termination != "" {
			if err := os.WriteFile(*termination, body, 0o644); err != nil {
				fmt.Fprintf(stderr, "tpcc storage-probe: --termination-log: %v\n", err)
				return 1
			}
		}
		if r.Error != "" {
			fmt.Fprintf(stderr, "tpcc storage-probe: %s\n", r.Error)
			return 1
		}
		return 0
	}
	dataDir, err := os.MkdirTemp(*dir, "storage-probe-")
	if err != nil {
		return report(storageprobe.Result{Error: fmt.Sprintf("--dir: %v", err)})
	}
	defer os.RemoveAll(dataDir)
	opts.Dir = dataDir
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, storageprobe.FioArgs(opts)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		msg := err.Error()
		if errors.As(err, &exit) {
			msg = fmt.Sprintf("fio exited with %d: %s", exit.ExitCode(), truncate(strings.TrimSpace(errOut.String()+" "+out.String()), 1500))
		}
		return report(storageprobe.Result{Error: msg})
	}
	r, err := storageprobe.Parse(out.Bytes())
	if err != nil {
		r = storageprobe.Result{Error: err.Error()}
	}
	return report(r)
}
