package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc"
)

// loadListenFlags are `tpcc load`'s --listen and --control-token-file: the load serves its
// progress (GET /v1/load, snapshot.LoadProgress) there, the way `tpcc run` serves its snapshot,
// under the same rule: any address but loopback needs the token (listenToken).
type loadListenFlags struct {
	listen    string
	tokenFile string
	token     string // read from tokenFile by check
}

func (f *loadListenFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.listen, "listen", "", "serve the load's progress (GET "+snapshot.PathLoad+": rows, warehouses done of the range, phase, the finish's statements; "+
		"and GET "+snapshot.PathHealth+") on this address, e.g. 127.0.0.1:8080; any address but loopback needs --control-token-file")
	fs.StringVar(&f.tokenFile, "control-token-file", "", "file holding the token every request to --listen but GET "+snapshot.PathHealth+
		" must present as \"Authorization: Bearer TOKEN\" (the operator mounts one per run from a Secret)")
}

// check validates the flags and reads the token.
func (f *loadListenFlags) check() error {
	if f.tokenFile != "" && f.listen == "" {
		return errors.New("--control-token-file needs --listen (it guards the progress served there)")
	}
	token, err := listenToken(f.listen, f.tokenFile)
	f.token = token
	return err
}

// serve serves progress on --listen until the returned stop is called; without --listen it serves
// nothing.
func (f *loadListenFlags) serve(stderr io.Writer, progress func() snapshot.LoadProgress) (stop func(), err error) {
	if f.listen == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", f.listen, err)
	}
	handler := snapshot.NewLoadHandler(progress)
	if f.token != "" {
		handler = snapshot.RequireToken(handler, f.token)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // returns on Shutdown
	fmt.Fprintf(stderr, "serving the load's progress on http://%s%s\n", ln.Addr(), snapshot.PathLoad)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// loadProgressOf is what GET /v1/load serves of the latest progress of a load of from..to (nil:
// none reported yet).
func loadProgressOf(lp *tpcc.LoadProgress, from, to int) snapshot.LoadProgress {
	out := snapshot.LoadProgress{Phase: "start", WarehouseFrom: from, WarehouseTo: to}
	if lp == nil {
		return out
	}
	out.Phase, out.Rows = lp.Phase, lp.Rows
	out.WarehousesDone, out.WarehousesSkipped = lp.WarehousesDone, lp.WarehousesSkipped
	out.ElapsedSeconds = lp.Elapsed.Seconds()
	out.Finish = lp.Finish
	return out
}
