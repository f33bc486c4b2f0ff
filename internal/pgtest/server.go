package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Server is a private PostgreSQL server of one test, on a free loopback port, that the test can
// stop and start again: a database that goes down and comes back. It uses Debian's PostgreSQL
// binaries (PGSYNC_BIN, else the newest under /usr/lib/postgresql), run as the postgres user when
// the test runs as root (PostgreSQL refuses root), like hack/pg-sync.sh. Without them the test is
// skipped, except under CI.
type Server struct {
	bin, dir string
	port     int
	asUser   []string
}

// NewServer initialises and starts a server with trust authentication on 127.0.0.1 only; it is
// stopped and removed when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	bin := os.Getenv("PGSYNC_BIN")
	if bin == "" {
		majors, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
		sort.Slice(majors, func(i, j int) bool { return majorOf(majors[i]) < majorOf(majors[j]) })
		if len(majors) > 0 {
			bin = filepath.Dir(majors[len(majors)-1])
		}
	}
	if _, err := os.Stat(filepath.Join(bin, "postgres")); bin == "" || err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no PostgreSQL binaries (apt-get install postgresql, or set PGSYNC_BIN)")
		}
		t.Skip("no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql) and PGSYNC_BIN unset")
	}
	s := &Server{bin: bin, port: freePort(t)}
	base, err := os.MkdirTemp("", "tpcc-pgtest-")
	if err != nil {
		t.Fatal(err)
	}
	s.dir = filepath.Join(base, "data")
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root without a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
		s.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	t.Cleanup(func() {
		_ = s.pgCtl("stop", "-m", "immediate")
		_ = os.RemoveAll(base)
	})
	if out, err := s.command(filepath.Join(bin, "initdb"), "-D", s.dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = ''\nfsync = off\nshared_buffers = 32MB\nmax_connections = 40\n", s.port)
	f, err := os.OpenFile(filepath.Join(s.dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(conf)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Start(t)
	return s
}

func majorOf(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// URL is the server's postgres:// URL of its postgres database.
func (s *Server) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// Start starts the server and waits until it accepts connections.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	if err := s.pgCtl("start", "-w", "-t", "60", "-l", filepath.Join(filepath.Dir(s.dir), "server.log")); err != nil {
		log, _ := os.ReadFile(filepath.Join(filepath.Dir(s.dir), "server.log"))
		t.Fatalf("starting PostgreSQL: %v\n%s", err, log)
	}
}

// Stop stops the server at once: connections drop, new ones are refused.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.pgCtl("stop", "-w", "-m", "immediate"); err != nil {
		t.Fatalf("stopping PostgreSQL: %v", err)
	}
}

func (s *Server) pgCtl(args ...string) error {
	out, err := s.command(filepath.Join(s.bin, "pg_ctl"), append([]string{"-D", s.dir}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (s *Server) command(name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, s.asUser...), name), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = os.TempDir()
	return cmd
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
