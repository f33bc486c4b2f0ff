package ydb

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ydb-platform/ydb-go-sdk/v3"
)

// ydbDialTimeout bounds the first connection and discovery of a YDB database.
var ydbDialTimeout = 30 * time.Second // a variable for tests

// openYDB connects to the YDB database at dsn. Its errors name --url and the endpoint (never the
// query string, where credentials may be) in one line; the SDK's own errors carry retry traces.
func openYDB(ctx context.Context, dsn string, opts ...ydb.Option) (*ydb.Driver, error) {
	dialCtx, cancel := context.WithTimeout(ctx, ydbDialTimeout)
	defer cancel()
	db, err := ydb.Open(dialCtx, dsn, opts...) // the driver outlives dialCtx: Open keeps only its values
	if err == nil {
		return db, nil
	}
	endpoint := "the endpoint"
	if u, perr := url.Parse(dsn); perr == nil && u.Host != "" {
		endpoint = u.Host + u.Path
	}
	if dialCtx.Err() != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("--url: cannot reach YDB at %s within %s", endpoint, ydbDialTimeout)
	}
	msg, _, _ := strings.Cut(err.Error(), " at `")
	return nil, fmt.Errorf("--url: cannot connect to YDB at %s: %s", endpoint, msg)
}
