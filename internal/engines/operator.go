package engines

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Operator is the database operator an engine's objects are written for: its name, the version
// they are written for and tested against (its CRDs are the ones the envtest suite installs), and
// how to install that version.
type Operator struct {
	Name, Version string
	// Install is the command that installs Version (for messages and docs/supported-versions.md).
	Install string
}

// Support says whether the API server serves what a run's database objects need. The check reads
// the served OpenAPI v3 documents (GET /openapi/v3/apis/GROUP/VERSION, which every authenticated
// user may read), so it needs no permission on CustomResourceDefinitions.
type Support struct {
	// Missing lists the kinds that are not served at all ("Cluster postgresql.cnpg.io/v1").
	Missing []string
	// Unknown lists, per kind, the object fields the served schema does not have: an older
	// operator whose CRD would prune them, or refuse them under strict field validation.
	Unknown []string
	// Unchecked lists the kinds that are served but whose schema is not published yet (the API
	// server publishes a new CRD's OpenAPI document a few seconds after serving it).
	Unchecked []string
}

// OK is true when every kind is served with every field the objects use.
func (s Support) OK() bool { return len(s.Missing) == 0 && len(s.Unknown) == 0 }

// Message says what is wrong, for the run's condition and the manager's log.
func (s Support) Message(op *Operator) string {
	var parts []string
	if len(s.Missing) > 0 {
		parts = append(parts, "not served: "+strings.Join(s.Missing, ", "))
	}
	if len(s.Unknown) > 0 {
		parts = append(parts, "the served schema lacks "+strings.Join(s.Unknown, ", "))
	}
	msg := strings.Join(parts, "; ")
	if op != nil {
		msg += fmt.Sprintf(". The objects are written for %s %s: %s", op.Name, op.Version, op.Install)
	}
	return msg
}

// GroupVersions lists the group versions of objects (the OpenAPI documents CheckObjects needs).
func GroupVersions(objects []*unstructured.Unstructured) []schema.GroupVersion {
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for _, o := range objects {
		gv := o.GroupVersionKind().GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	return out
}

// CheckObjects checks objects against what the API server serves: served says whether a kind is
// served (discovery), docs holds the OpenAPI v3 documents of the objects' group versions. Every
// field an object sets below its top level (apiVersion, kind, metadata and status aside) must be
// in the kind's schema, or be under a map or x-kubernetes-preserve-unknown-fields.
func CheckObjects(served func(schema.GroupVersionKind) bool, docs map[schema.GroupVersion]*spec3.OpenAPI, objects []*unstructured.Unstructured) Support {
	var s Support
	for _, o := range objects {
		gvk := o.GroupVersionKind()
		label := fmt.Sprintf("%s %s", gvk.Kind, gvk.GroupVersion())
		if !served(gvk) {
			s.Missing = append(s.Missing, label)
			continue
		}
		doc := docs[gvk.GroupVersion()]
		root := kindSchema(doc, gvk)
		if root == nil {
			s.Unchecked = append(s.Unchecked, label)
			continue
		}
		w := walker{doc: doc}
		for key, value := range o.Object {
			switch key {
			case "apiVersion", "kind", "metadata", "status":
				continue
			}
			w.check(key, value, w.property(root, key))
		}
		if len(w.unknown) > 0 {
			w.unknown = dedupe(w.unknown)
			s.Unknown = append(s.Unknown, fmt.Sprintf("%s: %s", label, strings.Join(w.unknown, ", ")))
		}
	}
	sort.Strings(s.Missing)
	return s
}

// kindSchema finds the schema of a kind in its group version's document, by the
// x-kubernetes-group-version-kind extension the API server puts on it.
func kindSchema(doc *spec3.OpenAPI, gvk schema.GroupVersionKind) *spec.Schema {
	if doc == nil || doc.Components == nil {
		return nil
	}
	for _, s := range doc.Components.Schemas {
		var gvks []struct{ Group, Version, Kind string }
		if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &gvks); err != nil {
			continue
		}
		for _, g := range gvks {
			if g.Group == gvk.Group && g.Version == gvk.Version && g.Kind == gvk.Kind {
				return s
			}
		}
	}
	return nil
}

type walker struct {
	doc     *spec3.OpenAPI
	unknown []string
}

// resolve follows $ref and a single-element allOf (how the API server wraps a referenced schema
// that has a default or a description of its own).
func (w *walker) resolve(s *spec.Schema) *spec.Schema {
	for i := 0; s != nil && i < 10; i++ {
		if ref := s.Ref.String(); ref != "" {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if w.doc.Components == nil {
				return nil
			}
			s = w.doc.Components.Schemas[name]
			continue
		}
		if len(s.AllOf) == 1 && len(s.Properties) == 0 && s.Items == nil && s.AdditionalProperties == nil {
			s = &s.AllOf[0]
			continue
		}
		return s
	}
	return s
}

// unchecked reports whether anything goes below s: unknown fields preserved, an int-or-string, or a
// schema that says nothing about its contents.
func unchecked(s *spec.Schema) bool {
	if v, ok := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields"); ok && v {
		return true
	}
	if v, ok := s.Extensions.GetBool("x-kubernetes-int-or-string"); ok && v {
		return true
	}
	return false
}

// property is the schema of a field of an object schema; nil when the field is unknown.
func (w *walker) property(s *spec.Schema, key string) *spec.Schema {
	s = w.resolve(s)
	if s == nil || unchecked(s) {
		return &spec.Schema{} // nothing to check below
	}
	if p, ok := s.Properties[key]; ok {
		return &p
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Schema != nil {
			return ap.Schema
		}
		if ap.Allows {
			return &spec.Schema{}
		}
	}
	for i := range s.AllOf {
		if p := w.property(&s.AllOf[i], key); p != nil {
			return p
		}
	}
	return nil
}

// check walks value against s, recording the path of every field s does not know.
func (w *walker) check(path string, value any, s *spec.Schema) {
	if s == nil {
		w.unknown = append(w.unknown, path)
		return
	}
	s = w.resolve(s)
	if s == nil || unchecked(s) {
		return
	}
	switch v := value.(type) {
	case map[string]any:
		if len(s.Properties) == 0 && s.AdditionalProperties == nil && len(s.AllOf) == 0 {
			return // an object the schema does not describe (no structural schema to hold it to)
		}
		for key, child := range v {
			w.check(path+"."+key, child, w.property(s, key))
		}
	case []any:
		if s.Items == nil || s.Items.Schema == nil {
			return
		}
		for _, child := range v {
			w.check(path+"[]", child, s.Items.Schema)
		}
	}
}

func dedupe(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, v := range list {
		if i == 0 || v != list[i-1] {
			out = append(out, v)
		}
	}
	return out
}
