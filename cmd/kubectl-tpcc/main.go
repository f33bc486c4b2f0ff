// Command kubectl-tpcc is the kubectl plugin of tpcc-operator: `kubectl tpcc status|report|compare|history`
// (docs/kubectl-tpcc.md). Copy the binary onto PATH and kubectl finds it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the flags every command shares.
type options struct {
	config *genericclioptions.ConfigFlags
	all    bool
	stdout io.Writer
	stderr io.Writer
	now    func() time.Time
	// poll is status -w's interval between reads.
	poll time.Duration
}

// nowFunc is the clock (tests fix it).
var nowFunc = time.Now

// run executes the plugin with args and returns its exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o := &options{config: genericclioptions.NewConfigFlags(true), stdout: stdout, stderr: stderr, now: nowFunc}
	root := &cobra.Command{
		Use:           "tpcc",
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl tpcc"},
		Short:         "Follow, report and compare tpcc-operator's BenchmarkRuns and BenchmarkSuites, and their history in the results database",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	o.config.AddFlags(root.PersistentFlags())
	root.PersistentFlags().BoolVarP(&o.all, "all-namespaces", "A", false, "look for NAME in every namespace; status without NAME lists every namespace")
	root.AddCommand(statusCommand(o), reportCommand(o), compareCommand(o), historyCommand(o))
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(exitUsage, "%v", err) })
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := codeOf(err)
	if code == exitError && isUsage(err) {
		code = exitUsage
	}
	if code == exitIncomplete {
		fmt.Fprintf(stderr, "incomplete: %v\n", err)
	} else {
		fmt.Fprintf(stderr, "error: %v\n", err)
	}
	return code
}

// isUsage recognises cobra's own argument errors.
func isUsage(err error) bool {
	for _, s := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}
