package main

import (
	"archive/tar"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// epoch is the modification time of every entry and of the image itself: the same inputs give
// the same layer and the same image ID.
var epoch = time.Unix(0, 0).UTC()

// Spec describes a single-layer linux image: the layer's content and the runtime configuration.
type Spec struct {
	Tag        string    // repository:tag written into the archive, e.g. localhost/tpcc-operator/manager:dev
	Root       string    // a folder copied as the root of the layer, owners kept (optional)
	Files      []File    // files copied into the layer after Root
	Links      []Link    // symbolic links
	Dirs       []Dir     // folders with an explicit mode, e.g. /tmp 1777
	Entrypoint []string  // image config
	Cmd        []string  //
	Env        []string  // KEY=VALUE
	User       string    // uid[:gid]
	WorkingDir string    //
	Arch       string    // GOARCH naming, default amd64
	Created    time.Time // default epoch
}

// File copies Src to Dst inside the image, owned by root, with Mode (tar mode bits, e.g. 0o755;
// 0 keeps the source's permissions).
type File struct {
	Src, Dst string
	Mode     int64
}

// Link is a symbolic link Dst -> Target inside the image.
type Link struct{ Dst, Target string }

// Dir is a folder Dst owned by root with Mode (tar mode bits: 0o1777 is a sticky /tmp).
type Dir struct {
	Dst  string
	Mode int64
}

// Validate names the first problem with the spec, by its flag.
func (s Spec) Validate() error {
	if s.Tag == "" {
		return errors.New("-tag: required, e.g. localhost/tpcc-operator/manager:dev")
	}
	if !validTag(s.Tag) {
		return fmt.Errorf("-tag %q: want REPOSITORY:TAG with a lowercase repository", s.Tag)
	}
	if s.Root == "" && len(s.Files) == 0 && len(s.Links) == 0 && len(s.Dirs) == 0 {
		return errors.New("the layer is empty: give -root, -file, -link or -dir")
	}
	for _, f := range s.Files {
		if !path.IsAbs(f.Dst) {
			return fmt.Errorf("-file %s=%s: the destination must be an absolute path", f.Src, f.Dst)
		}
	}
	for _, l := range s.Links {
		if !path.IsAbs(l.Dst) {
			return fmt.Errorf("-link %s=%s: the link must be an absolute path", l.Dst, l.Target)
		}
	}
	for _, d := range s.Dirs {
		if !path.IsAbs(d.Dst) {
			return fmt.Errorf("-dir %s: the folder must be an absolute path", d.Dst)
		}
	}
	for _, e := range s.Env {
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return fmt.Errorf("-env %q: want KEY=VALUE", e)
		}
	}
	return nil
}

// validTag accepts [host[:port]/]path:tag with a lowercase path and a tag of [A-Za-z0-9_.-].
func validTag(ref string) bool {
	slash := strings.LastIndex(ref, "/")
	colon := strings.LastIndex(ref, ":")
	if colon <= slash || colon == len(ref)-1 {
		return false
	}
	repo, tag := ref[:colon], ref[colon+1:]
	if len(tag) > 128 {
		return false
	}
	for _, r := range tag {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	for i, part := range strings.Split(repo, "/") {
		if part == "" {
			return false
		}
		for _, r := range part {
			if r >= 'A' && r <= 'Z' {
				return false
			}
			if i > 0 && r == ':' { // a port only in the first (host) component
				return false
			}
		}
	}
	return true
}

// Build writes the image as a docker archive (the `docker save` layout that `ctr images import`
// and `docker load` read) to out, and returns the image ID (the config digest).
func Build(s Spec, out string) (string, error) {
	if err := s.Validate(); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".layer-*.tar")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()

	layerSum := sha256.New()
	if err := writeLayer(io.MultiWriter(tmp, layerSum), s); err != nil {
		return "", err
	}
	diffID := "sha256:" + hex.EncodeToString(layerSum.Sum(nil))
	config, err := configJSON(s, diffID)
	if err != nil {
		return "", err
	}
	configSum := sha256.Sum256(config)
	configHex := hex.EncodeToString(configSum[:])
	layerPath := strings.TrimPrefix(diffID, "sha256:") + "/layer.tar"
	manifest, err := json.Marshal([]map[string]any{{
		"Config": configHex + ".json", "RepoTags": []string{s.Tag}, "Layers": []string{layerPath},
	}})
	if err != nil {
		return "", err
	}

	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	info, err := tmp.Stat()
	if err != nil {
		return "", err
	}
	f, err := os.Create(out + ".tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(out + ".tmp")
	tw := tar.NewWriter(f)
	if err := writeEntry(tw, configHex+".json", config); err != nil {
		f.Close()
		return "", err
	}
	if err := tw.WriteHeader(&tar.Header{Name: path.Dir(layerPath) + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch}); err != nil {
		f.Close()
		return "", err
	}
	if err := tw.WriteHeader(&tar.Header{Name: layerPath, Typeflag: tar.TypeReg, Mode: 0o644, Size: info.Size(), ModTime: epoch}); err != nil {
		f.Close()
		return "", err
	}
	if _, err := io.Copy(tw, tmp); err != nil {
		f.Close()
		return "", err
	}
	if err := writeEntry(tw, "manifest.json", manifest); err != nil {
		f.Close()
		return "", err
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(out+".tmp", out); err != nil {
		return "", err
	}
	return "sha256:" + configHex, nil
}

func writeEntry(tw *tar.Writer, name string, data []byte) error {
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: epoch}); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

func configJSON(s Spec, diffID string) ([]byte, error) {
	arch := s.Arch
	if arch == "" {
		arch = "amd64"
	}
	created := s.Created
	if created.IsZero() {
		created = epoch
	}
	type runtimeConfig struct {
		Env        []string `json:"Env,omitempty"`
		Entrypoint []string `json:"Entrypoint,omitempty"`
		Cmd        []string `json:"Cmd,omitempty"`
		User       string   `json:"User,omitempty"`
		WorkingDir string   `json:"WorkingDir,omitempty"`
	}
	return json.Marshal(map[string]any{
		"architecture": arch,
		"os":           "linux",
		"created":      created.Format(time.RFC3339),
		"config":       runtimeConfig{Env: s.Env, Entrypoint: s.Entrypoint, Cmd: s.Cmd, User: s.User, WorkingDir: s.WorkingDir},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{diffID}},
		"history":      []map[string]string{{"created": created.Format(time.RFC3339), "created_by": "tpcc-operator hack/mkimg"}},
	})
}

// writeLayer writes the layer tar: Root's tree (sorted, owners kept, devices and sockets
// skipped: the runtime provides /dev), then Dirs, Files and Links, with the parents they need.
func writeLayer(w io.Writer, s Spec) error {
	tw := tar.NewWriter(w)
	written := map[string]bool{}
	if s.Root != "" {
		if err := writeTree(tw, s.Root, written); err != nil {
			return err
		}
	}
	parents := func(p string) error {
		var missing []string
		for d := path.Dir(p); d != "/" && !written[d]; d = path.Dir(d) {
			missing = append(missing, d)
		}
		sort.Strings(missing)
		for _, d := range missing {
			if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(d, "/") + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
				return err
			}
			written[d] = true
		}
		return nil
	}
	for _, d := range s.Dirs {
		if err := parents(d.Dst); err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(path.Clean(d.Dst), "/") + "/", Typeflag: tar.TypeDir, Mode: d.Mode, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return err
		}
		written[path.Clean(d.Dst)] = true
	}
	for _, f := range s.Files {
		if err := parents(f.Dst); err != nil {
			return err
		}
		if err := copyFile(tw, f); err != nil {
			return err
		}
	}
	for _, l := range s.Links {
		if err := parents(l.Dst); err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: strings.TrimPrefix(path.Clean(l.Dst), "/"), Typeflag: tar.TypeSymlink, Linkname: l.Target, Mode: 0o777, ModTime: epoch, Format: tar.FormatPAX}); err != nil {
			return err
		}
	}
	return tw.Close()
}

func copyFile(tw *tar.Writer, f File) error {
	src, err := os.Open(f.Src)
	if err != nil {
		return fmt.Errorf("-file %s: %w", f.Src, err)
	}
	defer src.Close()
	info, err := src.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("-file %s: not a regular file", f.Src)
	}
	mode := f.Mode
	if mode == 0 {
		mode = int64(info.Mode().Perm())
	}
	hdr := &tar.Header{Name: strings.TrimPrefix(path.Clean(f.Dst), "/"), Typeflag: tar.TypeReg, Mode: mode, Size: info.Size(), ModTime: epoch, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, src)
	return err
}

func writeTree(tw *tar.Writer, root string, written map[string]bool) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || rel == "." {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode()
		if mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket|fs.ModeNamedPipe) != 0 {
			return nil
		}
		link := ""
		if mode&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		name := filepath.ToSlash(rel)
		hdr.Name = name
		if mode.IsDir() {
			hdr.Name += "/"
		}
		// Numeric owners stay (a PostgreSQL tree belongs to uid 26); names would be looked up
		// on the build machine, not in the image.
		hdr.Uname, hdr.Gname = "", ""
		hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = epoch, time.Time{}, time.Time{}
		hdr.Format = tar.FormatPAX
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		written["/"+name] = true
		if !mode.IsRegular() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
}
