package registry

import (
	"fmt"
	"sort"
	"strings"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Images are the operand images the manager gives each engine's database when a run names none,
// by engine; an engine without one uses its own default.
type Images map[benchv1.Engine]string

// ImageFlag is the manager's --image ENGINE=REF (repeated), a flag.Value: ENGINE must be an engine
// of the registry.
type ImageFlag struct {
	Registry *Registry
	Images   Images
}

// String lists the images given, sorted by engine.
func (f *ImageFlag) String() string {
	if f == nil || len(f.Images) == 0 {
		return ""
	}
	var parts []string
	for e, ref := range f.Images {
		parts = append(parts, string(e)+"="+ref)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// Set reads one ENGINE=REF.
func (f *ImageFlag) Set(value string) error {
	name, ref, ok := strings.Cut(value, "=")
	name, ref = strings.TrimSpace(name), strings.TrimSpace(ref)
	if !ok || name == "" || ref == "" {
		return fmt.Errorf("want ENGINE=REF (ENGINE one of %s), got %q", f.Registry.NamesText(), value)
	}
	if _, known := f.Registry.Lookup(benchv1.Engine(name)); !known {
		return fmt.Errorf("engine %q in %q is not one of %s", name, value, f.Registry.NamesText())
	}
	if f.Images == nil {
		f.Images = Images{}
	}
	f.Images[benchv1.Engine(name)] = ref
	return nil
}

// Merged are the images of legacy (the deprecated per-engine flags) overridden by those of f.
func (f *ImageFlag) Merged(legacy Images) Images {
	out := Images{}
	for e, ref := range legacy {
		if ref != "" {
			out[e] = ref
		}
	}
	for e, ref := range f.Images {
		out[e] = ref
	}
	return out
}

// NamesText lists the registry's engine names for messages and help texts: "PostgreSQL,
// CockroachDB, YDB".
func (r *Registry) NamesText() string {
	names := make([]string, len(r.list))
	for i, e := range r.list {
		names[i] = string(e.Name())
	}
	return strings.Join(names, ", ")
}
