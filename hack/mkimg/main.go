// Command mkimg packs a single-layer linux image from local files into a docker archive, without a
// Docker daemon or a registry: `ctr -n k8s.io images import OUT` (or `docker load -i OUT`) loads it.
//
//	mkimg -tag localhost/tpcc-operator/manager:dev -file bin/manager=/manager:0755 \
//	      -dir /tmp:1777 -user 65532:65532 -entrypoint /manager -o manager.tar
//	mkimg -tag localhost/cnpg/postgresql:15.18-bookworm -root ROOTFS -user 26 \
//	      -env PATH=/usr/lib/postgresql/15/bin:/usr/bin:/bin -o postgresql.tar
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	spec, out, err := parseArgs(os.Args[1:], os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkimg:", err)
		os.Exit(2)
	}
	id, err := Build(spec, out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkimg:", err)
		os.Exit(1)
	}
	fmt.Printf("%s %s %s\n", out, spec.Tag, id)
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func parseArgs(args []string, stderr io.Writer) (Spec, string, error) {
	var (
		s                           Spec
		out, entrypoint, cmd        string
		files, links, dirs, envVars listFlag
	)
	fs := flag.NewFlagSet("mkimg", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.Tag, "tag", "", "image name REPOSITORY:TAG")
	fs.StringVar(&s.Root, "root", "", "folder copied as the image root, numeric owners kept")
	fs.Var(&files, "file", "SRC=DST[:MODE] copy a file (MODE octal, e.g. 0755); repeatable")
	fs.Var(&links, "link", "DST=TARGET symbolic link; repeatable")
	fs.Var(&dirs, "dir", "DST[:MODE] folder (MODE octal, default 0755; 1777 for /tmp); repeatable")
	fs.Var(&envVars, "env", "KEY=VALUE in the image config; repeatable")
	fs.StringVar(&entrypoint, "entrypoint", "", "comma-separated entrypoint, e.g. /manager")
	fs.StringVar(&cmd, "cmd", "", "comma-separated default arguments")
	fs.StringVar(&s.User, "user", "", "uid[:gid] the image runs as")
	fs.StringVar(&s.WorkingDir, "workdir", "", "working directory")
	fs.StringVar(&s.Arch, "arch", "amd64", "GOARCH of the image")
	fs.StringVar(&out, "o", "", "output archive")
	if err := fs.Parse(args); err != nil {
		return Spec{}, "", err
	}
	if fs.NArg() > 0 {
		return Spec{}, "", fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if out == "" {
		return Spec{}, "", fmt.Errorf("-o: required, the archive to write")
	}
	for _, f := range files {
		src, rest, ok := strings.Cut(f, "=")
		if !ok || src == "" || rest == "" {
			return Spec{}, "", fmt.Errorf("-file %q: want SRC=DST[:MODE]", f)
		}
		dst, modeText, hasMode := strings.Cut(rest, ":")
		var mode int64
		if hasMode {
			m, err := strconv.ParseInt(modeText, 8, 32)
			if err != nil {
				return Spec{}, "", fmt.Errorf("-file %q: mode %q is not octal", f, modeText)
			}
			mode = m
		}
		s.Files = append(s.Files, File{Src: src, Dst: dst, Mode: mode})
	}
	for _, l := range links {
		dst, target, ok := strings.Cut(l, "=")
		if !ok || dst == "" || target == "" {
			return Spec{}, "", fmt.Errorf("-link %q: want DST=TARGET", l)
		}
		s.Links = append(s.Links, Link{Dst: dst, Target: target})
	}
	for _, d := range dirs {
		dst, modeText, hasMode := strings.Cut(d, ":")
		mode := int64(0o755)
		if hasMode {
			m, err := strconv.ParseInt(modeText, 8, 32)
			if err != nil {
				return Spec{}, "", fmt.Errorf("-dir %q: mode %q is not octal", d, modeText)
			}
			mode = m
		}
		s.Dirs = append(s.Dirs, Dir{Dst: dst, Mode: mode})
	}
	s.Env = envVars
	s.Entrypoint = splitList(entrypoint)
	s.Cmd = splitList(cmd)
	return s, out, s.Validate()
}

func splitList(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}
