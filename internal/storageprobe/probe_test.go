package storageprobe

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// testdata/fio-3.33-ext4.json is the output of a real fio 3.33 (built as hack/images.sh builds it)
// run with the arguments of FioArgs (runtime 5s) on this project's build machine's ext4 volume.
func fixture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/fio-3.33-ext4.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParse(t *testing.T) {
	r, err := Parse(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Tool: "fio-3.33", BlockSize: 8192, SyncP50: 185344 * time.Nanosecond, SyncP99: 354304 * time.Nanosecond,
		Syncs: 23053, WritesPerSecond: 4610.6, BytesPerSecond: 37770035}
	if r != want {
		t.Errorf("Parse:\n got %+v\nwant %+v", r, want)
	}
}

// edit returns the fixture with one change made to its first job.
func edit(t *testing.T, change func(job map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(fixture(t), &doc); err != nil {
		t.Fatal(err)
	}
	change(doc["jobs"].([]any)[0].(map[string]any))
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  []byte
		want string
	}{
		{"not JSON", []byte("fio: pid=12, err=28/file:io_u.c:1889, func=io_u error, error=No space left on device"), "not its JSON"},
		{"no job", []byte(`{"fio version":"fio-3.33","jobs":[]}`), "0 jobs"},
		{"job error", edit(t, func(j map[string]any) { j["error"] = 28 }), "error 28"},
		{"no fdatasync", edit(t, func(j map[string]any) {
			j["sync"] = map[string]any{"total_ios": 0, "lat_ns": map[string]any{"N": 0}}
		}), "0 fdatasyncs"},
		{"no percentiles", edit(t, func(j map[string]any) {
			j["sync"].(map[string]any)["lat_ns"].(map[string]any)["percentile"] = map[string]any{"1.000000": 10}
		}), "no 50th or 99th"},
		{"bad block size", edit(t, func(j map[string]any) { j["job options"].(map[string]any)["bs"] = "8q" }), `block size "8q"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"8192": 8192, "8k": 8192, "4K": 4096, "1m": 1 << 20, "": 0, "k": 0, "-1k": 0} {
		got, err := parseSize(in)
		if (err != nil) != (want == 0) || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestFioArgs(t *testing.T) {
	args := strings.Join(FioArgs(DefaultOptions("/data")), " ")
	for _, want := range []string{"--directory=/data", "--rw=write", "--ioengine=sync", "--fdatasync=1", "--bs=8192",
		"--size=67108864", "--runtime=10s", "--time_based", "--output-format=json"} {
		if !strings.Contains(args, want) {
			t.Errorf("fio args %q lack %s", args, want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := DefaultOptions("/data")
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Dir = "" }, "dir"},
		{func(o *Options) { o.BlockSize = 1000 }, "block-size 1000"},
		{func(o *Options) { o.FileSize = 8192 }, "file-size 8192"},
		{func(o *Options) { o.Runtime = 500 * time.Millisecond }, "runtime 500ms"},
	} {
		o := ok
		tc.change(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate: %v, want %q", err, tc.want)
		}
	}
}
