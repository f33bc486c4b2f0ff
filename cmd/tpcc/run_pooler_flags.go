package main

import (
	"errors"
	"fmt"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
)

// poolerURL checks --pooler-endpoint and --pooler-mode and returns the URL the step connects to:
// --url itself without a pooler, else --url routed to the pooler.
func (f *runFlags) poolerURL(d tpcc.Driver) (string, tpcc.PoolerMode, error) {
	switch {
	case f.poolerEndpoint == "" && f.poolerMode == "":
		return f.url, tpcc.PoolerNone, nil
	case f.poolerEndpoint == "":
		return "", "", errors.New("--pooler-mode needs --pooler-endpoint (the pooler's HOST:PORT)")
	case f.poolerMode == "":
		return "", "", errors.New("--pooler-endpoint needs --pooler-mode (transaction or session)")
	}
	if !d.Capabilities().Pooler {
		return "", "", fmt.Errorf("--pooler-endpoint is not supported with --engine %s (%s only)", d.Name(),
			tpcc.JoinNames(drivers.NamesOf(drivers.With(hasPooler)), "and"))
	}
	if _, _, err := tpcc.ParsePoolerEndpoint(f.poolerEndpoint); err != nil {
		return "", "", fmt.Errorf("--pooler-endpoint %w", err)
	}
	mode, err := tpcc.ParsePoolerMode(f.poolerMode)
	if err != nil {
		return "", "", fmt.Errorf("--pooler-mode %w", err)
	}
	u, err := tpcc.PoolerURL(d, f.url, f.poolerEndpoint, mode)
	if err != nil {
		return "", "", fmt.Errorf("--pooler-endpoint: %w", err)
	}
	return u, mode, nil
}

func hasPooler(c tpcc.Capabilities) bool { return c.Pooler }

// poolerEngines names the engines that run through a pooler, for the flag's help.
func poolerEngines() string {
	return tpcc.JoinNames(drivers.TitlesOf(drivers.With(hasPooler)), "and") + " only"
}
