package netfault

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/stream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// ProxyConfig is the delay proxy's: where it listens and the delay it adds.
type ProxyConfig struct {
	// Out and In are the listening addresses for the connections the pod opens (redirected from
	// its nat OUTPUT chain, so on loopback) and those its peers open (from PREROUTING).
	Out, In string
	// Delay ± Jitter is added once to each round trip: to what the pod sends.
	Delay, Jitter time.Duration
}

// Proxy is a transparent TCP proxy for connections iptables redirected to it: it reads each one's
// original destination, dials it with ProxyMark (so its own connection is not redirected again)
// and joins the two through Toxiproxy's links, whose latency toxic holds what the pod sends.
type Proxy struct {
	cfg       ProxyConfig
	server    *toxiproxy.ApiServer
	out, in   *toxiproxy.Proxy
	listeners []net.Listener
	// Conns counts the connections proxied so far.
	Conns atomic.Int64
}

// NewProxy listens on cfg's addresses; Serve then proxies until its context ends.
func NewProxy(cfg ProxyConfig) (*Proxy, error) {
	logger := zerolog.New(zerolog.ConsoleWriter{Out: logWriter{}}).Level(zerolog.WarnLevel)
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), logger)
	p := &Proxy{cfg: cfg, server: server}
	var err error
	// The pod's egress: upstream on the connections it opens, downstream on those it accepts.
	if p.out, err = p.toxic("out", cfg.Out, "upstream"); err != nil {
		return nil, err
	}
	if p.in, err = p.toxic("in", cfg.In, "downstream"); err != nil {
		return nil, err
	}
	for _, addr := range []string{cfg.Out, cfg.In} {
		l, err := net.Listen("tcp4", addr)
		if err != nil {
			p.Close()
			return nil, fmt.Errorf("listening on %s: %w", addr, err)
		}
		p.listeners = append(p.listeners, l)
	}
	return p, nil
}

// toxic is a Toxiproxy proxy (never started: Serve accepts for it) with one latency toxic.
func (p *Proxy) toxic(name, listen, direction string) (*toxiproxy.Proxy, error) {
	tp := toxiproxy.NewProxy(p.server, name, listen, "original destination")
	body := fmt.Sprintf(`{"name":"delay","type":"latency","stream":%q,"attributes":{"latency":%d,"jitter":%d}}`,
		direction, p.cfg.Delay.Milliseconds(), p.cfg.Jitter.Milliseconds())
	if _, err := tp.Toxics.AddToxicJson(strings.NewReader(body)); err != nil {
		return nil, fmt.Errorf("the latency toxic: %w", err)
	}
	return tp, nil
}

// Serve accepts on both listeners until ctx ends, then closes them and every proxied connection.
func (p *Proxy) Serve(ctx context.Context) error {
	errs := make(chan error, len(p.listeners))
	for i, l := range p.listeners {
		tp := p.out
		if i == 1 {
			tp = p.in
		}
		go func() { errs <- p.accept(ctx, l, tp) }()
	}
	<-ctx.Done()
	p.Close()
	var all []error
	for range p.listeners {
		if err := <-errs; err != nil && !errors.Is(err, net.ErrClosed) {
			all = append(all, err)
		}
	}
	return errors.Join(all...)
}

// Close stops listening; proxied connections end with the process.
func (p *Proxy) Close() {
	for _, l := range p.listeners {
		_ = l.Close()
	}
}

func (p *Proxy) accept(ctx context.Context, l net.Listener, tp *toxiproxy.Proxy) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go p.join(ctx, l, c.(*net.TCPConn), tp)
	}
}

// join dials the accepted connection's original destination and links the two.
func (p *Proxy) join(ctx context.Context, l net.Listener, c *net.TCPConn, tp *toxiproxy.Proxy) {
	dst, err := OriginalDestination(c)
	if err != nil || dst == l.Addr().(*net.TCPAddr).AddrPort() || dst.Port() == uint16(l.Addr().(*net.TCPAddr).Port) {
		_ = c.Close() // not a redirected connection: someone dialed the proxy itself
		return
	}
	d := net.Dialer{Timeout: 10 * time.Second, Control: markSocket}
	up, err := d.DialContext(ctx, "tcp4", dst.String())
	if err != nil {
		_ = c.Close()
		return
	}
	p.Conns.Add(1)
	name := c.RemoteAddr().String() + "→" + dst.String()
	tp.Toxics.StartLink(p.server, name+" upstream", c, up.(*net.TCPConn), stream.Upstream)
	tp.Toxics.StartLink(p.server, name+" downstream", up, c, stream.Downstream)
}

// markSocket gives a socket ProxyMark before it connects.
func markSocket(_, _ string, rc syscall.RawConn) error {
	var serr error
	err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_MARK, ProxyMark)
	})
	if err != nil {
		return err
	}
	return serr
}

// OriginalDestination is where a connection iptables redirected was headed (SO_ORIGINAL_DST).
func OriginalDestination(c *net.TCPConn) (netip.AddrPort, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return netip.AddrPort{}, err
	}
	var mreq *unix.IPv6Mreq
	var serr error
	if err := rc.Control(func(fd uintptr) {
		// SO_ORIGINAL_DST returns a sockaddr_in: the port at bytes 2–3, the address at 4–7.
		mreq, serr = unix.GetsockoptIPv6Mreq(int(fd), unix.SOL_IP, unix.SO_ORIGINAL_DST)
	}); err != nil {
		return netip.AddrPort{}, err
	}
	if serr != nil {
		return netip.AddrPort{}, fmt.Errorf("SO_ORIGINAL_DST: %w", serr)
	}
	raw := mreq.Multiaddr
	addr := netip.AddrFrom4([4]byte{raw[4], raw[5], raw[6], raw[7]})
	return netip.AddrPortFrom(addr, binary.BigEndian.Uint16(raw[2:4])), nil
}

// logWriter sends Toxiproxy's warnings (a peer that went away) to standard error.
type logWriter struct{}

func (logWriter) Write(b []byte) (int, error) { return os.Stderr.Write(b) }
