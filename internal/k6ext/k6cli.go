package k6ext

import (
	"context"
	"io"
	_ "unsafe" // go:linkname

	// Linked for executeWithGlobalState below; cmd.Execute is what xk6 generates a main around.
	_ "go.k6.io/k6/cmd"
	"go.k6.io/k6/cmd/state"
)

// executeWithGlobalState is k6's own CLI entry point (go.k6.io/k6/internal/cmd), the function
// behind the public cmd.Execute. cmd.Execute takes its arguments from os.Args and ends the
// process with os.Exit; `tpcc run` must give k6 its own arguments, read k6's exit code and go on
// (final snapshot, summary, linger), and `tpcc search` runs k6 several times in one process.
// GlobalState carries exactly those knobs (CmdArgs, Env, Stdin, OSExit), but the function that
// accepts one is in an internal package, so it is linked by name. The k6 version is pinned in
// go.mod (v1.8.1); TestK6InProcess fails the build's tests if the symbol changes.
//
//go:linkname executeWithGlobalState go.k6.io/k6/internal/cmd.ExecuteWithGlobalState
func executeWithGlobalState(gs *state.GlobalState)

// K6Invocation is one in-process run of the k6 CLI.
type K6Invocation struct {
	Args  []string          // after the binary name, e.g. run --quiet -
	Env   map[string]string // added to the process environment k6 sees
	Stdin io.Reader         // the script when Args names "-"; nil: the process's stdin
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
	if inv.Stdin != nil {
		gs.Stdin = inv.Stdin
	}
	code := -1
	gs.OSExit = func(c int) { code = c }
	executeWithGlobalState(gs)
	return code
}

// offlineEnv keeps k6 from reaching the network on its own: no anonymous usage report and no
// automatic extension provisioning (the extension is built in).
var offlineEnv = map[string]string{
	"K6_NO_USAGE_REPORT":           "true",
	"K6_AUTO_EXTENSION_RESOLUTION": "false",
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
