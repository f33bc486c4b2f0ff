package netfault

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"
)

// ProxyMain runs the delay proxy from the command line (the injector's subcommand "proxy", which
// it starts inside the pod's network namespace): it prints ProxyReady once it listens and serves
// until it is signalled.
func ProxyMain(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	var cfg ProxyConfig
	fs.StringVar(&cfg.Out, "out", "", "listen address for the connections the pod opens (loopback)")
	fs.StringVar(&cfg.In, "in", "", "listen address for the connections its peers open")
	fs.DurationVar(&cfg.Delay, "delay", 0, "delay added to each round trip")
	fs.DurationVar(&cfg.Jitter, "jitter", 0, "the delay is drawn within delay ± jitter")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case cfg.Out == "" || cfg.In == "":
		return fmt.Errorf("--out and --in are required")
	case cfg.Delay <= 0 || cfg.Jitter < 0 || cfg.Jitter > cfg.Delay:
		return fmt.Errorf("--delay %s --jitter %s: want a positive delay and a jitter within it", cfg.Delay, cfg.Jitter)
	}
	p, err := NewProxy(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	fmt.Fprintln(stdout, ProxyReady)
	return p.Serve(ctx)
}
