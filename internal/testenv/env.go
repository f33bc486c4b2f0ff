package testenv

import (
	"errors"
	"fmt"
	"go.uber.org/zap/zapcore"
	"os"
	"os/exec"
	"path/filepath"
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

// Start starts kube-apiserver and etcd. KUBEBUILDER_ASSETS names their folder; when it is unset,
// hack/envtest-assets.sh provides them (built from source and cached on first use).
func Start() (*Env, error) { return start(CRDPaths) }

// StartWithoutOperators starts an API server with the operator's own CRDs only: a cluster where
// no database operator is installed.
func StartWithoutOperators() (*Env, error) {
	return start(func(root string) ([]string, error) {
		return []string{filepath.Join(root, "config", "crd", "bases")}, nil
	})
}

// StartEmpty starts an API server with no CRD at all: a cluster nothing of this project touched.
func StartEmpty() (*Env, error) {
	return start(func(string) ([]string, error) { return nil, nil })
}

func start(crdPaths func(root string) ([]string, error)) (*Env, error) {
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
		// e2e's cluster beside make test) that once ran out before the API server had them.
		CRDInstallOptions: envtest.CRDInstallOptions{MaxTime: time.Minute},
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
func Main(m *testing.M, use func(env *Env, c client.Client)) {
	ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.ErrorLevel)))
	env, err := Start()
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
