// Package samples holds the sample manifests (config/samples) and their test: every sample is
// applied as written, with a server-side dry run, to an API server that serves the project's CRDs
// and the database operators' (CloudNativePG's, cockroach-operator's, ydb-operator's).
package samples

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tpcc-operator/tpcc-operator/internal/testenv"
)

var k8s client.Client

func TestMain(m *testing.M) {
	testenv.Main(m, func(_ *testenv.Env, c client.Client) { k8s = c })
}

// currentNamespace stands for the namespace kubectl applies a sample's unnamespaced objects to.
const currentNamespace = "samples-current"

// sampleFiles are every sample manifest under config/samples, kustomization.yaml aside.
func sampleFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".yaml") && filepath.Base(path) != "kustomization.yaml" {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found %d samples: %v", len(files), files)
	}
	return files
}

func decodeAll(t *testing.T, body []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(body), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// header is a sample's leading comment.
func header(body []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Every sample runs as written: each object is accepted by a server-side dry run (strict field
// validation) against the project's and the database operators' CRDs; an object names only a
// namespace the sample itself creates (the others go to the namespace kubectl applies to); and a
// StorageClass or VolumeSnapshotClass a sample names, which only some clusters have, is named in
// its header.
func TestEverySampleAppliesAsWritten(t *testing.T) {
	ctx := context.Background()
	if err := k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: currentNamespace}}); err != nil {
		t.Fatal(err)
	}
	classes := regexp.MustCompile(`(?m)^[^#]*\b(storageClass|storageClassName|volumeSnapshotClassName):\s*"?([A-Za-z0-9.-]+)`)
	for _, path := range sampleFiles(t) {
		t.Run(path, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range classes.FindAllStringSubmatch(string(body), -1) {
				if !strings.Contains(header(body), m[2]) {
					t.Errorf("%s %q exists only on some clusters: the header must name it and say what to use instead", m[1], m[2])
				}
			}
			objs := decodeAll(t, body)
			created := map[string]bool{}
			for _, o := range objs {
				if o.GetKind() == "Namespace" {
					// What the sample creates, for real: its other objects go into it.
					created[o.GetName()] = true
					if err := k8s.Create(ctx, o.DeepCopy()); err != nil && !apierrors.IsAlreadyExists(err) {
						t.Fatalf("Namespace %s: %v", o.GetName(), err)
					}
				}
			}
			for _, o := range objs {
				if o.GetKind() == "Namespace" {
					continue
				}
				namespaced, err := k8s.IsObjectNamespaced(o)
				if err != nil {
					t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
				}
				switch ns := o.GetNamespace(); {
				case !namespaced:
				case ns == "":
					o.SetNamespace(currentNamespace)
				case !created[ns]:
					t.Errorf("%s %s is in namespace %s, which the sample does not create", o.GetKind(), o.GetName(), ns)
					continue
				}
				if o.GetName() == "" && o.GetGenerateName() == "" {
					t.Errorf("%s has no name", o.GetKind())
					continue
				}
				if err := k8s.Create(ctx, o, client.DryRunAll, client.FieldValidation(metav1.FieldValidationStrict)); err != nil {
					t.Errorf("%s %s: %v", o.GetKind(), o.GetName(), err)
				}
			}
		})
	}
}

// kustomization.yaml says how long the demo it starts runs in the demo's own words.
func TestKustomizationAgreesWithTheDemo(t *testing.T) {
	demo, err := os.ReadFile("demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kustomization, err := os.ReadFile("kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^# Duration: about ([^—]+?) —`).FindSubmatch(demo)
	if m == nil {
		t.Fatal("demo.yaml's header has no `# Duration: about … —` line")
	}
	if !strings.Contains(string(kustomization), "demo.yaml") || !strings.Contains(strings.ReplaceAll(string(kustomization), "\n# ", " "), string(m[1])) {
		t.Errorf("kustomization.yaml does not say the demo runs about %s, as demo.yaml's header does", m[1])
	}
}
