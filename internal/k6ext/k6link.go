package k6ext

import (
	_ "unsafe" // go:linkname

	// Linked for executeWithGlobalState below; cmd.Execute is what xk6 generates a main around.
	_ "go.k6.io/k6/cmd"
	"go.k6.io/k6/cmd/state"
)

// This file is the package's one reach into k6's internals. RunK6 needs the k6 CLI run in this
// process with its own arguments, environment and stdin, its exit code returned instead of the
// process ending (`tpcc run` goes on to the final snapshot, the summary and the linger), and
// several runs in one process (`tpcc search`). k6's public API (go.k6.io/k6 at the version of
// K6Version) offers no way to do that:
//
//   - cmd.Execute (go.k6.io/k6/cmd), the one public CLI entry point, builds its state with
//     state.NewGlobalState: arguments from os.Args, environment from os.Environ, stdin os.Stdin,
//     and os.Exit as OSExit, so the process ends after the first run.
//   - cmd/state exports GlobalState and NewGlobalState, whose fields CmdArgs, Env, Stdin and
//     OSExit carry exactly these knobs, but no public function takes a GlobalState and runs it.
//   - cmd/tests.NewGlobalTestState needs a testing.TB and only builds a state; the function
//     that executes one is internal there too.
//   - subcommand.RegisterExtension adds `k6 x NAME` commands to k6's CLI; it does not run it.
//   - Running a test through public packages: lib and js/modules hold the interfaces and the
//     module registry, but the JS runner (internal/js), the loader (internal/loader), the
//     scheduler (internal/execution), the built-in outputs (internal/output) and the option
//     consolidation with its exit codes (internal/cmd) are all internal.
//
// So the function behind cmd.Execute, which takes the GlobalState, is linked by name. The k6
// version is pinned in go.mod; k6link_test.go fails, naming this symbol and the k6 version, when
// the module version, the symbol's declared signature or its behaviour (exit codes, arguments,
// environment, stdin, output) change.
//
//go:linkname executeWithGlobalState go.k6.io/k6/internal/cmd.ExecuteWithGlobalState
func executeWithGlobalState(gs *state.GlobalState)
