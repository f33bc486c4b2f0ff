// Package storageprobe measures what a volume delivers to the operation a commit waits for: small
// sequential writes, each followed by fdatasync, one at a time — what PostgreSQL's WAL flush and a
// Raft log append do (and the check etcd's documentation recommends for its own disks). The tool is
// fio (built from Debian's source package into the client image, hack/images.sh); this package
// holds its arguments and reads its JSON output. It is pure and imports nothing of Kubernetes.
package storageprobe

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Options of one measurement.
type Options struct {
	// Dir is the folder on the volume to measure; fio writes one file there.
	Dir string
	// BlockSize of each write, in bytes (8192: a PostgreSQL WAL page).
	BlockSize int
	// FileSize is the size of the file written over and over (64 MiB: four WAL segments).
	FileSize int64
	// Runtime is how long fio writes.
	Runtime time.Duration
}

// DefaultOptions are the operator's: 8 KiB writes for 10 s on a 64 MiB file.
func DefaultOptions(dir string) Options {
	return Options{Dir: dir, BlockSize: 8192, FileSize: 64 << 20, Runtime: 10 * time.Second}
}

// Validate names the option (as the storage-probe flag) that cannot be measured with.
func (o Options) Validate() error {
	switch {
	case o.Dir == "":
		return fmt.Errorf("dir: empty")
	case o.BlockSize < 512 || o.BlockSize%512 != 0:
		return fmt.Errorf("block-size %d: want a multiple of 512 bytes", o.BlockSize)
	case o.FileSize < int64(o.BlockSize)*16:
		return fmt.Errorf("file-size %d: want at least 16 blocks of %d bytes", o.FileSize, o.BlockSize)
	case o.Runtime < time.Second:
		return fmt.Errorf("runtime %s: want at least 1s", o.Runtime)
	}
	return nil
}

// FioArgs are fio's arguments for the measurement: one job writing sequentially with write(2)
// (ioengine=sync, queue depth 1) and fdatasync(2) after every write, for Runtime over a file of
// FileSize laid out first (so the writes overwrite allocated blocks, as a recycled WAL segment),
// reporting JSON.
func FioArgs(o Options) []string {
	return []string{
		"--name=commit", "--directory=" + o.Dir, "--rw=write", "--ioengine=sync", "--fdatasync=1",
		"--bs=" + strconv.Itoa(o.BlockSize), "--size=" + strconv.FormatInt(o.FileSize, 10),
		"--runtime=" + strconv.Itoa(int(o.Runtime/time.Second)) + "s", "--time_based",
		"--output-format=json",
	}
}

// Result is one measurement.
type Result struct {
	// Tool is fio with its version ("fio-3.33").
	Tool string `json:"tool"`
	// BlockSize of each write in bytes.
	BlockSize int64 `json:"blockSize"`
	// SyncP50 and SyncP99 are the latency percentiles of the fdatasync after each write.
	SyncP50 time.Duration `json:"syncP50"`
	SyncP99 time.Duration `json:"syncP99"`
	// Syncs is how many fdatasync calls the percentiles are over.
	Syncs int64 `json:"syncs"`
	// WritesPerSecond and BytesPerSecond are the throughput of the synchronous writes.
	WritesPerSecond float64 `json:"writesPerSecond"`
	BytesPerSecond  int64   `json:"bytesPerSecond"`
	// Error says why there is no measurement (the other fields are then empty).
	Error string `json:"error,omitempty"`
}

// fioOutput is the part of fio's JSON output (format version 3.x) a Result reads.
type fioOutput struct {
	Version string `json:"fio version"`
	Jobs    []struct {
		Name  string `json:"jobname"`
		Error int    `json:"error"`
		Write struct {
			IOBytes  int64   `json:"io_bytes"`
			TotalIOs int64   `json:"total_ios"`
			IOPS     float64 `json:"iops"`
			BW       int64   `json:"bw_bytes"`
		} `json:"write"`
		Sync struct {
			Lat struct {
				N          int64              `json:"N"`
				Percentile map[string]float64 `json:"percentile"`
			} `json:"lat_ns"`
		} `json:"sync"`
		Options map[string]string `json:"job options"`
	} `json:"jobs"`
}

// Parse reads fio's JSON output of a FioArgs run.
func Parse(out []byte) (Result, error) {
	var f fioOutput
	if err := json.Unmarshal(out, &f); err != nil {
		return Result{}, fmt.Errorf("fio's output is not its JSON: %w", err)
	}
	if len(f.Jobs) != 1 {
		return Result{}, fmt.Errorf("fio reported %d jobs, want 1", len(f.Jobs))
	}
	j := f.Jobs[0]
	if j.Error != 0 {
		return Result{}, fmt.Errorf("fio's job %q ended with error %d", j.Name, j.Error)
	}
	if j.Sync.Lat.N == 0 || j.Write.TotalIOs == 0 {
		return Result{}, fmt.Errorf("fio's job %q made %d writes and %d fdatasyncs: nothing to report (was --fdatasync=1 given?)",
			j.Name, j.Write.TotalIOs, j.Sync.Lat.N)
	}
	p50, ok50 := j.Sync.Lat.Percentile["50.000000"]
	p99, ok99 := j.Sync.Lat.Percentile["99.000000"]
	if !ok50 || !ok99 {
		return Result{}, fmt.Errorf("fio's job %q reported no 50th or 99th percentile of its fdatasync latency", j.Name)
	}
	bs, err := strconv.ParseInt(j.Options["bs"], 10, 64)
	if err != nil {
		if bs, err = parseSize(j.Options["bs"]); err != nil {
			return Result{}, fmt.Errorf("fio's job %q: block size %q: %w", j.Name, j.Options["bs"], err)
		}
	}
	return Result{Tool: f.Version, BlockSize: bs, SyncP50: time.Duration(p50), SyncP99: time.Duration(p99), Syncs: j.Sync.Lat.N,
		WritesPerSecond: j.Write.IOPS, BytesPerSecond: j.Write.BW}, nil
}

// parseSize reads fio's "8k" style sizes (powers of 1024, as fio's default kb_base).
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1 << 10
	case 'm', 'M':
		mult = 1 << 20
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("not a size")
	}
	return v * mult, nil
}
