package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/drivers"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/isolation"
)

// listFlag is a flag given once per value (--cluster-setting a=1 --cluster-setting b=2).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// parseIsolation reads --isolation for the engine: "" keeps the engine's default.
func parseIsolation(d tpcc.Driver, s string) (isolation.Level, error) {
	if s == "" {
		return "", nil
	}
	l, err := isolation.Parse(s)
	if err != nil {
		return "", fmt.Errorf("--isolation: %w", err)
	}
	if why := d.Capabilities().SupportsIsolation(l); why != "" {
		return "", fmt.Errorf("--isolation %s: %s", s, why)
	}
	return l, nil
}

// settingsFlags are the load's flags that name server settings, contributed by the drivers that
// apply them (tpcc.SettingsApplier): one repeatable flag per name, its usage the driver's.
type settingsFlags struct {
	names  []string
	values map[string]*listFlag
	owners map[string][]string // flag → the engines that take it
}

func registerSettingsFlags(fs *flag.FlagSet) *settingsFlags {
	s := &settingsFlags{values: map[string]*listFlag{}, owners: map[string][]string{}}
	for _, d := range drivers.All() {
		a, ok := d.(tpcc.SettingsApplier)
		if !ok {
			continue
		}
		name, usage := a.SettingsFlag()
		if _, seen := s.values[name]; !seen {
			s.names = append(s.names, name)
			s.values[name] = &listFlag{}
			fs.Var(s.values[name], name, usage)
		}
		s.owners[name] = append(s.owners[name], d.Name())
	}
	return s
}

// check fails when a settings flag is given with an engine that does not take it.
func (s *settingsFlags) check(d tpcc.Driver) error {
	for _, name := range s.names {
		if len(*s.values[name]) > 0 && !s.takes(d, name) {
			return fmt.Errorf("--%s applies only to --engine %s", name, tpcc.JoinNames(s.owners[name], "or"))
		}
	}
	return nil
}

func (s *settingsFlags) takes(d tpcc.Driver, name string) bool {
	for _, o := range s.owners[name] {
		if o == d.Name() {
			return true
		}
	}
	return false
}

// apply sets the settings given for d's flag before it loads (idempotent: every loader pod
// applies them).
func (s *settingsFlags) apply(ctx context.Context, d tpcc.Driver, url string) error {
	a, ok := d.(tpcc.SettingsApplier)
	if !ok {
		return nil
	}
	name, _ := a.SettingsFlag()
	pairs := *s.values[name]
	if len(pairs) == 0 {
		return nil
	}
	return a.ApplySettings(ctx, url, pairs)
}
