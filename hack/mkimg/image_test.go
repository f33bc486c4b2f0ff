package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readArchive returns every entry of a tar file by name.
func readArchive(t *testing.T, data []byte) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	headers, contents := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return headers, contents
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		headers[hdr.Name], contents[hdr.Name] = hdr, body
	}
}

func TestBuildWritesALoadableDockerArchive(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	for _, p := range []string{"etc", "usr/bin"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "etc/passwd"), []byte("postgres:x:26:26::/var/lib/postgresql:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../etc/passwd", filepath.Join(root, "usr/bin/passwd-link")); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "manager")
	if err := os.WriteFile(binary, []byte("#!binary"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := Spec{
		Tag:        "localhost/cnpg/cloudnative-pg:1.29.1",
		Root:       root,
		Files:      []File{{Src: binary, Dst: "/operator/manager_amd64", Mode: 0o755}},
		Links:      []Link{{Dst: "/manager", Target: "operator/manager_amd64"}},
		Dirs:       []Dir{{Dst: "/tmp", Mode: 0o1777}},
		Entrypoint: []string{"/manager"},
		Env:        []string{"PATH=/usr/bin:/bin"},
		User:       "65532:65532",
		WorkingDir: "/",
	}
	out := filepath.Join(dir, "image.tar")
	id, err := Build(spec, out)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, files := readArchive(t, data)

	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if len(manifest) != 1 || len(manifest[0].Layers) != 1 || manifest[0].RepoTags[0] != spec.Tag {
		t.Fatalf("manifest = %+v", manifest)
	}
	configBytes := files[manifest[0].Config]
	configSum := sha256.Sum256(configBytes)
	if id != "sha256:"+hex.EncodeToString(configSum[:]) || manifest[0].Config != hex.EncodeToString(configSum[:])+".json" {
		t.Errorf("image id %s does not match the config digest of %s", id, manifest[0].Config)
	}
	var config struct {
		Architecture, OS string
		Config           struct {
			Env, Entrypoint []string
			User            string
			WorkingDir      string
		}
		RootFS struct {
			Type    string
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(configBytes, &config); err != nil {
		t.Fatal(err)
	}
	// containerd filters out images without a platform ("image might be filtered out").
	if config.OS != "linux" || config.Architecture != "amd64" {
		t.Errorf("platform = %s/%s, want linux/amd64", config.OS, config.Architecture)
	}
	if config.Config.User != "65532:65532" || config.Config.WorkingDir != "/" || config.Config.Entrypoint[0] != "/manager" || config.Config.Env[0] != "PATH=/usr/bin:/bin" {
		t.Errorf("runtime config = %+v", config.Config)
	}
	layer := files[manifest[0].Layers[0]]
	layerSum := sha256.Sum256(layer)
	if len(config.RootFS.DiffIDs) != 1 || config.RootFS.DiffIDs[0] != "sha256:"+hex.EncodeToString(layerSum[:]) {
		t.Fatalf("diff_ids %v do not match the layer's digest", config.RootFS.DiffIDs)
	}

	headers, contents := readArchive(t, layer)
	checks := []struct {
		name     string
		typeflag byte
		mode     int64
		link     string
	}{
		{"etc/", tar.TypeDir, 0o755, ""},
		{"etc/passwd", tar.TypeReg, 0o644, ""},
		{"usr/bin/passwd-link", tar.TypeSymlink, 0o777, "../../etc/passwd"},
		{"operator/", tar.TypeDir, 0o755, ""},
		{"operator/manager_amd64", tar.TypeReg, 0o755, ""},
		{"manager", tar.TypeSymlink, 0o777, "operator/manager_amd64"},
		{"tmp/", tar.TypeDir, 0o1777, ""},
	}
	for _, c := range checks {
		h, ok := headers[c.name]
		if !ok {
			t.Errorf("layer lacks %s; has %v", c.name, keys(headers))
			continue
		}
		if h.Typeflag != c.typeflag || h.Mode&0o7777 != c.mode || h.Linkname != c.link {
			t.Errorf("%s: type %c mode %o link %q, want type %c mode %o link %q", c.name, h.Typeflag, h.Mode, h.Linkname, c.typeflag, c.mode, c.link)
		}
		if !h.ModTime.Equal(epoch) {
			t.Errorf("%s: mtime %v, want the fixed epoch", c.name, h.ModTime)
		}
	}
	if string(contents["operator/manager_amd64"]) != "#!binary" {
		t.Errorf("copied file content = %q", contents["operator/manager_amd64"])
	}

	// Same inputs, same image: the ID is reproducible.
	again, err := Build(spec, filepath.Join(dir, "again.tar"))
	if err != nil {
		t.Fatal(err)
	}
	if again != id {
		t.Errorf("second build id %s != first %s", again, id)
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, s Spec)
	}{
		{
			name: "files, links, dirs and config",
			args: []string{"-tag", "localhost/a/b:1", "-file", "bin/m=/m:0755", "-link", "/x=m", "-dir", "/tmp:1777",
				"-env", "A=1", "-env", "B=2", "-entrypoint", "/m,run", "-user", "26", "-o", "out.tar"},
			check: func(t *testing.T, s Spec) {
				if len(s.Files) != 1 || s.Files[0] != (File{Src: "bin/m", Dst: "/m", Mode: 0o755}) {
					t.Errorf("files = %+v", s.Files)
				}
				if s.Dirs[0].Mode != 0o1777 || s.Links[0].Target != "m" || len(s.Env) != 2 || strings.Join(s.Entrypoint, " ") != "/m run" || s.User != "26" {
					t.Errorf("spec = %+v", s)
				}
			},
		},
		{name: "missing tag", args: []string{"-dir", "/tmp", "-o", "x.tar"}, wantErr: "-tag: required"},
		{name: "tag without version", args: []string{"-tag", "localhost/a", "-dir", "/tmp", "-o", "x.tar"}, wantErr: "-tag \"localhost/a\""},
		{name: "uppercase repository", args: []string{"-tag", "Local/a:1", "-dir", "/tmp", "-o", "x.tar"}, wantErr: "lowercase"},
		{name: "registry port is fine", args: []string{"-tag", "127.0.0.1:5000/a/b:v1", "-dir", "/tmp", "-o", "x.tar"}},
		{name: "missing output", args: []string{"-tag", "a/b:1", "-dir", "/tmp"}, wantErr: "-o: required"},
		{name: "empty layer", args: []string{"-tag", "a/b:1", "-o", "x.tar"}, wantErr: "the layer is empty"},
		{name: "relative destination", args: []string{"-tag", "a/b:1", "-file", "m=m", "-o", "x.tar"}, wantErr: "absolute path"},
		{name: "bad file mode", args: []string{"-tag", "a/b:1", "-file", "m=/m:rwx", "-o", "x.tar"}, wantErr: "not octal"},
		{name: "bad link", args: []string{"-tag", "a/b:1", "-link", "/m", "-o", "x.tar"}, wantErr: "want DST=TARGET"},
		{name: "bad env", args: []string{"-tag", "a/b:1", "-dir", "/tmp", "-env", "NOVALUE", "-o", "x.tar"}, wantErr: "want KEY=VALUE"},
		{name: "stray argument", args: []string{"-tag", "a/b:1", "-dir", "/tmp", "-o", "x.tar", "extra"}, wantErr: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, err := parseArgs(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func TestBuildReportsAMissingSourceFile(t *testing.T) {
	_, err := Build(Spec{Tag: "a/b:1", Files: []File{{Src: "/does/not/exist", Dst: "/x"}}}, filepath.Join(t.TempDir(), "x.tar"))
	if err == nil || !strings.Contains(err.Error(), "-file /does/not/exist") {
		t.Fatalf("err = %v, want it to name the -file", err)
	}
}

func keys(m map[string]*tar.Header) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
