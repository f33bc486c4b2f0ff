package pgwire

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/pgtest"
)

// BenchmarkPostgresTelemetrySample measures what one database sample costs (the sampling pod's
// --telemetry reads per interval: pg_stat_database with pg_database_size, the checkpointer,
// pg_stat_replication, pg_stat_activity): its wall time, and the CPU it takes on both sides —
// this process's (getrusage) and that of the server backend serving the sampler's connection
// (/proc/PID/stat of pg_backend_pid(); the server must run on this machine). The CPU is the
// figure that bounds what sampling can take from a CPU-bound run: at one sample per interval it is
// (client + server CPU per sample) / interval of the machine's cores. Reported as custom metrics
// clientCPU-µs/op and serverCPU-µs/op.
//
//	TPCC_PG_URL=postgres://postgres@127.0.0.1:63432/bench?sslmode=disable \
//	  go test -run XXX -bench PostgresTelemetrySample -benchtime 2000x ./internal/tpcc
//
// Point TPCC_PG_URL at a loaded database (tpcc load --warehouses 4): pg_database_size walks its
// files, so an empty database would understate the cost.
func BenchmarkPostgresTelemetrySample(b *testing.B) {
	u := pgtest.URL(b)
	ctx := context.Background()
	s, err := newPGTelemetry(ctx, u)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var pid int
	if err := s.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		b.Fatal(err)
	}
	serverCPU := func() time.Duration {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			b.Skipf("the server's backend %d is not on this machine: %v", pid, err)
		}
		// Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		return time.Duration(ut+st) * time.Second / 100 // USER_HZ
	}
	clientCPU := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if t := s.Sample(ctx); t.Error != "" { // warm: the connection's statement cache, the catalog
		b.Fatal(t.Error)
	}
	c0, s0 := clientCPU(), serverCPU()
	b.ResetTimer()
	for range b.N {
		if t := s.Sample(ctx); t.Error != "" {
			b.Fatal(t.Error)
		}
	}
	b.StopTimer()
	c1, s1 := clientCPU(), serverCPU()
	b.ReportMetric(float64((c1-c0).Microseconds())/float64(b.N), "clientCPU-µs/op")
	b.ReportMetric(float64((s1-s0).Microseconds())/float64(b.N), "serverCPU-µs/op")
}
