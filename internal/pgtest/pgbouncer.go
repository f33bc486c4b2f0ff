package pgtest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// PgBouncerBin is where Debian's pgbouncer package installs the pooler.
const PgBouncerBin = "/usr/sbin/pgbouncer"

// PgBouncer is a PgBouncer process of one test in front of a PostgreSQL server: trust
// authentication on 127.0.0.1, a free port, every database of the server, default_pool_size
// server connections per database and user. It runs as the postgres user when the test runs as
// root (PgBouncer refuses root). Without Debian's pgbouncer the test is skipped, except under CI.
type PgBouncer struct {
	port int
	dir  string
}

// NewPgBouncer starts PgBouncer in pool mode mode ("transaction", "session") in front of the
// server of serverURL (a postgres:// URL with host and port) with poolSize server connections per
// database and user; it is stopped when the test ends.
func NewPgBouncer(t testing.TB, serverURL, mode string, poolSize int) *PgBouncer {
	t.Helper()
	if _, err := os.Stat(PgBouncerBin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no %s (CI is set): apt-get install pgbouncer (.ci/run installs it)", PgBouncerBin)
		}
		t.Skipf("no %s: apt-get install pgbouncer", PgBouncerBin)
	}
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatalf("the server's URL is not a URL: %v", err)
	}
	role := u.User.Username()
	b := &PgBouncer{port: freePort(t)}
	if b.dir, err = os.MkdirTemp("", "tpcc-pgbouncer-"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(b.dir) })
	conf := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir = %s
auth_type = trust
auth_file = %s
pool_mode = %s
default_pool_size = %d
max_client_conn = 500
logfile = %s
pidfile = %s
ignore_startup_parameters = extra_float_digits
`, u.Hostname(), u.Port(), b.port, b.dir, filepath.Join(b.dir, "userlist.txt"), mode, poolSize,
		filepath.Join(b.dir, "pgbouncer.log"), filepath.Join(b.dir, "pgbouncer.pid"))
	files := map[string]string{"pgbouncer.ini": conf, "userlist.txt": fmt.Sprintf("%q \"\"\n", role)}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(b.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(PgBouncerBin, filepath.Join(b.dir, "pgbouncer.ini"))
	cmd.Dir = b.dir
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root without a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		if err := os.Chown(b.dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start pgbouncer: %v", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", b.Endpoint(), time.Second)
		if err == nil {
			c.Close()
			return b
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(b.dir, "pgbouncer.log"))
			t.Fatalf("pgbouncer exited: %v\n%s", waitErr, log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(b.dir, "pgbouncer.log"))
			t.Fatalf("pgbouncer does not listen on %s: %v\n%s", b.Endpoint(), err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Endpoint is the pooler's HOST:PORT.
func (b *PgBouncer) Endpoint() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(b.port)) }
