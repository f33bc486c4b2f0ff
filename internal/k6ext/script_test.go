package k6ext

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestDefaultScript checks the embedded script is scripts/default.js and that k6 reads from it
// the one scenario `tpcc run` relies on: one VU, one iteration, bounded by TPCC_MAX_DURATION
// (which k6 run reads from the environment; inspect needs --include-system-env-vars for it).
func TestDefaultScript(t *testing.T) {
	file, err := os.ReadFile("scripts/default.js")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(DefaultScript, file) {
		t.Fatal("DefaultScript differs from scripts/default.js")
	}
	if !bytes.Contains(DefaultScript, []byte("from '"+ModuleName+"'")) {
		t.Fatalf("the default script does not import %s", ModuleName)
	}
	cases := []struct {
		name        string
		env         map[string]string
		maxDuration string
	}{
		{name: "TPCC_MAX_DURATION bounds the scenario", env: map[string]string{"TPCC_MAX_DURATION": "90s"}, maxDuration: "1m30s"},
		{name: "without it, a day", maxDuration: "24h0m0s"},
	}
	for _, c := range cases {
		code, stdout, stderr := runK6(context.Background(), K6Invocation{Args: []string{"inspect", "--include-system-env-vars", "-"}, Env: OfflineEnv(c.env),
			Stdin: bytes.NewReader(DefaultScript)})
		if code != 0 {
			t.Fatalf("%s: k6 inspect exited with %d; stderr:\n%s", c.name, code, stderr)
		}
		var opts struct {
			Scenarios map[string]struct {
				Executor     string `json:"executor"`
				VUs          int    `json:"vus"`
				Iterations   int    `json:"iterations"`
				MaxDuration  string `json:"maxDuration"`
				GracefulStop string `json:"gracefulStop"`
			} `json:"scenarios"`
		}
		if err := json.Unmarshal([]byte(stdout), &opts); err != nil {
			t.Fatalf("%s: k6 inspect printed %q: %v", c.name, stdout, err)
		}
		sc, ok := opts.Scenarios["tpcc"]
		if len(opts.Scenarios) != 1 || !ok {
			t.Fatalf("%s: scenarios %+v, want tpcc alone", c.name, opts.Scenarios)
		}
		if sc.Executor != "per-vu-iterations" || sc.VUs != 1 || sc.Iterations != 1 || sc.MaxDuration != c.maxDuration || sc.GracefulStop != "30s" {
			t.Errorf("%s: scenario %+v, want per-vu-iterations, 1 VU, 1 iteration, maxDuration %s, gracefulStop 30s", c.name, sc, c.maxDuration)
		}
	}
}
