// Command tpcc is the TPC-C client: it loads, checks and (with the subcommands others add) runs
// the workload against PostgreSQL, CockroachDB or YDB, with or without Kubernetes.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

// command is one subcommand; run returns the process exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands lists the subcommands; adding one is one line here plus its own file.
var commands = []command{
	loadCommand,
	checkCommand,
	storageProbeCommand,
	runCommand, searchCommand, k6Command,
	resultsCommand,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// dispatch runs the subcommand named by args[0]; it is main without the process around it.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "tpcc: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tpcc <command> [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun tpcc <command> -h for its flags.")
}

// targetFlags are the flags every data command shares.
type targetFlags struct {
	engine     string
	url        string
	warehouses int
	from, to   int
	threads    int
}

func (t *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.engine, "engine", "", engineUsage())
	fs.StringVar(&t.url, "url", "", "connection URL: "+drivers.URLHelp()+" (default: env TPCC_URL)")
	fs.IntVar(&t.warehouses, "warehouses", 0, "number of warehouses of the database (required, >= 1)")
	fs.IntVar(&t.from, "from", 0, "first warehouse of this process's range (default 1)")
	fs.IntVar(&t.to, "to", 0, "last warehouse of this process's range (default --warehouses)")
	fs.IntVar(&t.threads, "threads", runtime.NumCPU(), "parallel connections")
}

// resolve validates the shared flags and fills the range defaults.
func (t *targetFlags) resolve() (tpcc.Driver, error) {
	if t.engine == "" {
		return nil, errEngineRequired()
	}
	d, err := drivers.Lookup(t.engine)
	if err != nil {
		return nil, fmt.Errorf("--engine: %w", err)
	}
	if t.url == "" {
		t.url = os.Getenv("TPCC_URL") // how the operator's Jobs pass it: from a Secret, never in args
	}
	if t.url == "" {
		return nil, fmt.Errorf("--url is required (or set env TPCC_URL)")
	}
	from, to, err := tpcc.ValidateRange(t.warehouses, t.from, t.to, t.threads)
	if err != nil {
		return nil, err
	}
	t.from, t.to = from, to
	return d, nil
}

// engineList is the --engine values as prose: "postgres, cockroach or ydb".
func engineList() string { return tpcc.JoinNames(drivers.Names(), "or") }

// engineUsage is the usage of --engine.
func engineUsage() string { return "database engine: " + engineList() + " (required)" }

// errEngineRequired is the error of a command without --engine.
func errEngineRequired() error { return fmt.Errorf("--engine is required (%s)", engineList()) }

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses args; it returns an exit code and false when the command must stop (help or error).
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "tpcc %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
