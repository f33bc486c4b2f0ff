package results

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Connect opens a connection to the results database at uri, trying attempts times (at least
// once) with a growing pause between tries, each within 10 s. Errors never hold the password.
func Connect(ctx context.Context, uri string, attempts int) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(uri)
	if err != nil {
		return nil, fmt.Errorf("the results database URI is not a PostgreSQL URI: %s", Redact(err.Error(), uri))
	}
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > 10*time.Second {
		cfg.ConnectTimeout = 10 * time.Second
	}
	cfg.RuntimeParams["application_name"] = "tpcc-results"
	var last error
	for i := range max(1, attempts) {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(i) * 2 * time.Second):
			}
		}
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, fmt.Errorf("connecting to the results database: %s", Redact(last.Error(), uri))
}

// Redacted is the URI without its password.
func Redacted(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return "(unparsable URI)"
	}
	return u.Redacted()
}

// Redact removes from msg the URI and its password, in every form they may appear.
func Redact(msg, uri string) string {
	if uri == "" {
		return msg
	}
	msg = strings.ReplaceAll(msg, uri, Redacted(uri))
	if cfg, err := pgx.ParseConfig(uri); err == nil && cfg.Password != "" {
		msg = strings.ReplaceAll(msg, cfg.Password, "xxxxx")
	}
	if u, err := url.Parse(uri); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
			msg = strings.ReplaceAll(msg, url.QueryEscape(p), "xxxxx")
		}
	}
	return msg
}
