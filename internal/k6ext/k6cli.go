package k6ext

import (
	"context"
	"io"
	"strconv"

	"go.k6.io/k6/cmd/state"
)

// K6Invocation is one in-process run of the k6 CLI.
type K6Invocation struct {
	Args  []string          // after the binary name, e.g. run --quiet -
	Env   map[string]string // added to the process environment k6 sees
	Stdin io.Reader         // the script when Args names "-"; nil: the process's stdin
	// Stdout and Stderr receive k6's output and logs; nil: the process's. A writer given here is
	// not a terminal: no colours, no progress bars.
	Stdout, Stderr io.Writer
}

// RunK6 runs the k6 CLI in this process and returns its exit code (0 ok, 99 thresholds failed,
// 107 script error, …; go.k6.io/k6/errext/exitcodes). Cancelling ctx aborts the test.
func RunK6(ctx context.Context, inv K6Invocation) int {
	gs := state.NewGlobalState(ctx)
	gs.CmdArgs = append([]string{"k6"}, inv.Args...)
	gs.BinaryName = "tpcc k6"
	for k, v := range inv.Env {
		gs.Env[k] = v
	}
	// k6 reads this feature flag from the process environment when the state is made; the
	// invocation's environment must turn it off too (OfflineEnv).
	if v, err := strconv.ParseBool(inv.Env[state.AutoExtensionResolution]); err == nil {
		gs.Flags.AutoExtensionResolution = v
	}
	if inv.Stdin != nil {
		gs.Stdin = inv.Stdin
	}
	if inv.Stdout != nil {
		gs.Stdout.Writer, gs.Stdout.IsTTY = inv.Stdout, false
	}
	if inv.Stderr != nil {
		gs.Stderr.Writer, gs.Stderr.IsTTY = inv.Stderr, false
	}
	code := -1
	gs.OSExit = func(c int) { code = c }
	executeWithGlobalState(gs)
	return code
}

// offlineEnv keeps k6 from reaching the network on its own: no anonymous usage report and no
// automatic extension provisioning (the extension is built in).
var offlineEnv = map[string]string{
	"K6_NO_USAGE_REPORT":          "true",
	state.AutoExtensionResolution: "false",
}

// OfflineEnv returns offlineEnv merged with extra (extra wins).
func OfflineEnv(extra map[string]string) map[string]string {
	env := make(map[string]string, len(offlineEnv)+len(extra))
	for k, v := range offlineEnv {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}
