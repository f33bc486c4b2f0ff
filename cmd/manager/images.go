package main

import (
	"flag"
	"os"
	"sort"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/engines/registry"
)

// legacyImages are the per-engine image flags (and their environment variables) that came before
// --image ENGINE=REF: each engine names its own (engines.Engine.LegacyImageFlag). They keep
// working, deprecated; --image wins over them.
type legacyImages struct {
	fs     *flag.FlagSet
	values map[benchv1.Engine]*string
	flags  map[benchv1.Engine][2]string
}

// legacyImageFlags registers every engine's deprecated image flag on fs, defaulting to its
// environment variable.
func legacyImageFlags(fs *flag.FlagSet, r *registry.Registry) *legacyImages {
	l := &legacyImages{fs: fs, values: map[benchv1.Engine]*string{}, flags: map[benchv1.Engine][2]string{}}
	for _, e := range r.Engines() {
		name, env := e.LegacyImageFlag()
		if name == "" {
			continue
		}
		l.values[e.Name()] = fs.String(name, os.Getenv(env), "Deprecated: use --image "+string(e.Name())+"=REF (or "+env+"). The "+string(e.Name())+" operand image when a run names none.")
		l.flags[e.Name()] = [2]string{name, env}
	}
	return l
}

// images are the legacy flags' values, by engine ("" where unset: ImageFlag.Merged drops them).
func (l *legacyImages) images() registry.Images {
	out := registry.Images{}
	for e, v := range l.values {
		out[e] = *v
	}
	return out
}

// used names the legacy flags and variables given, for a deprecation line in the log.
func (l *legacyImages) used() []string {
	set := map[string]bool{}
	l.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var out []string
	for _, names := range l.flags {
		if set[names[0]] {
			out = append(out, "--"+names[0])
		} else if os.Getenv(names[1]) != "" {
			out = append(out, names[1])
		}
	}
	sort.Strings(out)
	return out
}
