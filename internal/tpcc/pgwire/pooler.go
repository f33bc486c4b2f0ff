package pgwire

// How the PostgreSQL flavour runs a step through PgBouncer (CloudNativePG's Pooler): the URL
// routed to the pooler, and the query mode every connection made from it uses.

import (
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// pooledExecMode is the query mode through a transaction-mode pooler: pgx caches each
// statement's description (its parameter and result types) per client connection and sends every
// execution as the unnamed statement (Parse, Bind, Execute, Sync) in one round trip. No named
// prepared statement is left on a server connection, so the next transaction may run on another
// one (PgBouncer before 1.21, or with max_prepared_statements 0, does not carry them over); a
// description read on one server connection holds on any other of the same database. Batches
// stay one pipelined round trip once their descriptions are cached. QueryExecModeDescribeExec is
// not safe there (its describe and execute are two round trips, possibly on two server
// connections); QueryExecModeExec is, but sends text parameters.
const pooledExecMode = pgx.QueryExecModeCacheDescribe

// execMode is the executor's query mode: statements prepared once per connection and cached, but
// through a transaction-mode pooler pooledExecMode.
func execMode(m tpcc.PoolerMode) pgx.QueryExecMode {
	if m == tpcc.PoolerTransaction {
		return pooledExecMode
	}
	return pgx.QueryExecModeCacheStatement
}

// pooledExecModeParam is pooledExecMode as pgx's connection string parameter.
const pooledExecModeParam = "cache_describe"

// PoolerURL is raw with the pooler's endpoint in place of the server's hosts and ports. Through a
// transaction-mode pooler it also sets pgx's default_query_exec_mode to pooledExecMode, so that
// every connection of the step made from it (the telemetry, the ledger, the meta reads) uses no
// named prepared statements either.
func (f *Flavour) PoolerURL(raw, endpoint string, mode tpcc.PoolerMode) (string, error) {
	if !f.caps.Pooler {
		return "", fmt.Errorf("engine %s does not run through a connection pooler", f.name)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("URL: %s", snapshot.RedactCredentials(err.Error()))
	}
	u.Host = endpoint
	if mode == tpcc.PoolerTransaction {
		q := u.Query()
		q.Set("default_query_exec_mode", pooledExecModeParam)
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}
