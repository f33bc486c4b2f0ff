package testenv

import (
	"errors"
	"fmt"
	"go.uber.org/zap/zapcore"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/yaml"

	cnpgv1 "github.com/cloudnative-pg/api/pkg/api/v1"

	benchv1alpha1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
)

// Env is a running API server with every CRD the operator works with.
type Env struct {
	*envtest.Environment
	Config   *rest.Config
	Scheme   *runtime.Scheme
	RepoRoot string
}

// Option changes the API server a test binary starts.
type Option func(*options)

type options struct {
	// ownCRDs transforms the operator's own CRDs (config/crd/bases) before they are installed.
	ownCRDs []func(*apiextensionsv1.CustomResourceDefinition)
}

// WithOwnCRDs has the operator's own CRDs changed by f before they are installed: a test
// engine's name added to spec.database.engine's enum, as a real engine adds itself to the API.
func WithOwnCRDs(f func(*apiextensionsv1.CustomResourceDefinition)) Option {
	return func(o *options) { o.ownCRDs = append(o.ownCRDs, f) }
}

// Start starts kube-apiserver and etcd. KUBEBUILDER_ASSETS names their folder; when it is unset,
// hack/envtest-assets.sh provides them (built from source and cached on first use).
func Start(opts ...Option) (*Env, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return startWith(CRDPaths, o)
}

// StartWithoutOperators starts an API server with the operator's own CRDs only: a cluster where
// no database operator is installed.
func StartWithoutOperators() (*Env, error) {
	return start(func(root string) ([]string, error) {
		return []string{filepath.Join(root, "config", "crd", "bases")}, nil
	})
}

// StartWithCloudNativePG starts an API server with the operator's own CRDs and CloudNativePG's of
// version (a tag of its Go module): the cluster of someone who installed that release.
func StartWithCloudNativePG(version string) (*Env, error) {
	return start(func(root string) ([]string, error) {
		cnpg, err := moduleDir(CloudNativePGModule, version)
		if err != nil {
			return nil, err
		}
		return []string{filepath.Join(root, "config", "crd", "bases"), filepath.Join(cnpg, "config", "crd", "bases")}, nil
	})
}

// StartEmpty starts an API server with no CRD at all: a cluster nothing of this project touched.
func StartEmpty() (*Env, error) {
	return start(func(string) ([]string, error) { return nil, nil })
}

func start(crdPaths func(root string) ([]string, error)) (*Env, error) {
	return startWith(crdPaths, options{})
}

func startWith(crdPaths func(root string) ([]string, error), o options) (*Env, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		out, err := exec.Command(filepath.Join(root, "hack", "envtest-assets.sh")).Output()
		if err != nil {
			return nil, fmt.Errorf("hack/envtest-assets.sh: %w%s", err, stderrOf(err))
		}
		os.Setenv("KUBEBUILDER_ASSETS", strings.TrimSpace(string(out)))
	}
	crds, err := crdPaths(root)
	if err != nil {
		return nil, err
	}
	var changed []*apiextensionsv1.CustomResourceDefinition
	if len(o.ownCRDs) > 0 {
		own := filepath.Join(root, "config", "crd", "bases")
		if changed, err = readCRDs(own, o.ownCRDs); err != nil {
			return nil, err
		}
		crds = slices.DeleteFunc(crds, func(p string) bool { return p == own })
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, benchv1alpha1.AddToScheme, cnpgv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     crds,
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
		// envtest waits 10 s by default for the CRDs to be served: on a loaded 2-core machine (the
		// e2e's cluster beside make test) that is not always enough.
		CRDInstallOptions: envtest.CRDInstallOptions{MaxTime: time.Minute, CRDs: changed},
	}
	cfg, err := env.Start()
	if err != nil {
		// Start may fail after kube-apiserver and etcd are up (e.g. installing a CRD): stop them.
		_ = env.Stop()
		return nil, fmt.Errorf("starting envtest: %w", err)
	}
	return &Env{Environment: env, Config: cfg, Scheme: scheme, RepoRoot: root}, nil
}

// RepoRoot is the folder holding go.mod, found upwards from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

func stderrOf(err error) string {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && len(exitErr.Stderr) > 0 {
		return ": " + string(exitErr.Stderr)
	}
	return ""
}

// Main is a TestMain for packages whose tests need the API server: it starts it, hands the
// environment and a direct (uncached) client to use, runs the tests, stops it and exits.
func Main(m *testing.M, use func(env *Env, c client.Client), opts ...Option) {
	ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	env, err := Start(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		_ = env.Stop()
		os.Exit(1)
	}
	use(env, c)
	code := m.Run()
	if err := env.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "stopping envtest:", err)
	}
	os.Exit(code)
}

// readCRDs reads the CRDs of the YAML files in dir and applies each change to them.
func readCRDs(dir string, changes []func(*apiextensionsv1.CustomResourceDefinition)) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(body, crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, change := range changes {
			change(crd)
		}
		out = append(out, crd)
	}
	return out, nil
}
