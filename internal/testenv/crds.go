// Package testenv starts a real API server (envtest) with the BenchmarkRun CRD and the CRDs of the
// three database operators installed, for tests of everything the operator does against Kubernetes.
package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Versions of the database operators whose CRDs tests install.
const (
	CloudNativePGModule  = "github.com/cloudnative-pg/cloudnative-pg"
	CloudNativePGVersion = "v1.29.1"
	// The external-snapshotter's VolumeSnapshot CRDs (its client module, from the Go module proxy),
	// of the version hack/cluster/snapshots.sh runs.
	SnapshotterModule  = "github.com/kubernetes-csi/external-snapshotter/client/v8"
	SnapshotterVersion = "v8.7.0"
	CockroachVersion   = "v2.18.3"
	YDBOperatorVersion = "0.8.0"
)

// thirdPartyCRD is a CRD file that ships outside the Go module proxy: read from the shared folder
// (TPCC_CRDS_DIR, default ../shared/crds beside the repository) or downloaded from its upstream tag.
type thirdPartyCRD struct {
	folder, file, url string
}

var thirdPartyCRDs = []thirdPartyCRD{
	{
		folder: "cockroach-operator-" + CockroachVersion,
		file:   "crdb.cockroachlabs.com_crdbclusters.yaml",
		url:    "https://raw.githubusercontent.com/cockroachdb/cockroach-operator/" + CockroachVersion + "/config/crd/bases/crdb.cockroachlabs.com_crdbclusters.yaml",
	},
	{
		folder: "ydb-operator-" + YDBOperatorVersion,
		file:   "storage.yaml",
		url:    "https://raw.githubusercontent.com/ydb-platform/ydb-kubernetes-operator/" + YDBOperatorVersion + "/deploy/ydb-operator/crds/storage.yaml",
	},
	{
		folder: "ydb-operator-" + YDBOperatorVersion,
		file:   "database.yaml",
		url:    "https://raw.githubusercontent.com/ydb-platform/ydb-kubernetes-operator/" + YDBOperatorVersion + "/deploy/ydb-operator/crds/database.yaml",
	},
}

// CRDPaths lists the CRD files and folders to install: ours, CloudNativePG's (from its Go module),
// cockroach-operator's and ydb-operator's.
func CRDPaths(repoRoot string) ([]string, error) {
	paths := []string{filepath.Join(repoRoot, "config", "crd", "bases")}

	cnpg, err := moduleDir(CloudNativePGModule, CloudNativePGVersion)
	if err != nil {
		return nil, err
	}
	paths = append(paths, filepath.Join(cnpg, "config", "crd", "bases"))

	snapshotter, err := moduleDir(SnapshotterModule, SnapshotterVersion)
	if err != nil {
		return nil, err
	}
	for _, kind := range []string{"volumesnapshots", "volumesnapshotcontents", "volumesnapshotclasses"} {
		paths = append(paths, filepath.Join(snapshotter, "config", "crd", "snapshot.storage.k8s.io_"+kind+".yaml"))
	}

	shared := os.Getenv("TPCC_CRDS_DIR")
	if shared == "" {
		shared = filepath.Join(repoRoot, "..", "shared", "crds")
	}
	for _, crd := range thirdPartyCRDs {
		path, err := locate(crd, shared)
		if err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func moduleDir(module, version string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module+"@"+version).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %w", module, version, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: %s", module, version, info.Error)
	}
	return info.Dir, nil
}

func locate(crd thirdPartyCRD, sharedDir string) (string, error) {
	local := filepath.Join(sharedDir, crd.folder, crd.file)
	if _, err := os.Stat(local); err == nil {
		return local, nil
	}
	cached := filepath.Join(cacheDir(), "crds", crd.folder, crd.file)
	if _, err := os.Stat(cached); err == nil {
		return cached, nil
	}
	if err := download(crd.url, cached); err != nil {
		return "", fmt.Errorf("CRD %s/%s is neither in %s nor downloadable: %w", crd.folder, crd.file, sharedDir, err)
	}
	return cached, nil
}

func download(url, dest string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp := dest + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dest)
}

func cacheDir() string {
	if dir := os.Getenv("TPCC_CACHE"); dir != "" {
		return dir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "tpcc-operator")
	}
	return filepath.Join(os.TempDir(), "tpcc-operator")
}
