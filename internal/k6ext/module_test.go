package k6ext

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tpcc-operator/tpcc-operator/internal/snapshot"
	"github.com/tpcc-operator/tpcc-operator/internal/tpcc/pgwire"
)

func TestConfigFromOptions(t *testing.T) {
	t.Setenv("TPCC_URL", "postgres://from-env/tpcc")
	host, _ := os.Hostname()
	engine := pgwire.PostgresDriver().Name()
	cases := []struct {
		name string
		opts map[string]any
		want Config // Engine is checked by name; Pod is the hostname
		err  string // substring of the error; "" valid
	}{
		{name: "the defaults", opts: map[string]any{"engine": engine, "url": "postgres://db/tpcc", "warehouses": int64(4)},
			want: Config{URL: "postgres://db/tpcc", Warehouses: 4, ActiveWarehouses: 4, From: 1, To: 4, Wait: snapshot.WaitSpec}},
		{name: "the URL from TPCC_URL", opts: map[string]any{"engine": engine, "warehouses": int64(1)},
			want: Config{URL: "postgres://from-env/tpcc", Warehouses: 1, ActiveWarehouses: 1, From: 1, To: 1, Wait: snapshot.WaitSpec}},
		{name: "a range of the active warehouses", opts: map[string]any{"engine": engine, "url": "u", "warehouses": int64(8),
			"activeWarehouses": int64(6)}, want: Config{URL: "u", Warehouses: 8, ActiveWarehouses: 6, From: 1, To: 6, Wait: snapshot.WaitSpec}},
		{name: "every option, numbers as JavaScript floats", opts: map[string]any{"engine": strings.ToUpper(engine), "url": "u",
			"warehouses": 8.0, "activeWarehouses": 6.0, "from": 3.0, "to": 4.0, "connections": 5.0, "wait": "none", "rampUp": "1s",
			"duration": "2m"}, want: Config{URL: "u", Warehouses: 8, ActiveWarehouses: 6, From: 3, To: 4, Connections: 5,
			Wait: snapshot.WaitNone, RampUp: time.Second, Duration: 2 * time.Minute}},
		{name: "an unknown engine", opts: map[string]any{"engine": "flatfile"}, err: `option engine: unknown engine "flatfile"`},
		{name: "no engine", opts: map[string]any{"url": "u"}, err: `option engine: unknown engine ""`},
		{name: "a fraction", opts: map[string]any{"engine": engine, "warehouses": 1.5}, err: "option warehouses: 1.5 is not an integer"},
		{name: "a string for a number", opts: map[string]any{"engine": engine, "connections": "8"}, err: "option connections: want a number, got string"},
		{name: "a bad ramp-up", opts: map[string]any{"engine": engine, "rampUp": "soon"}, err: `option rampUp: time: invalid duration "soon"`},
		{name: "a bad duration", opts: map[string]any{"engine": engine, "duration": "10"}, err: `option duration: time: missing unit in duration "10"`},
	}
	for _, c := range cases {
		got, err := configFromOptions(c.opts)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got.Engine == nil || got.Engine.Name() != engine {
			t.Errorf("%s: engine %v, want %s", c.name, got.Engine, engine)
		}
		c.want.Engine, c.want.Pod = got.Engine, host
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: config\n%+v, want\n%+v", c.name, got, c.want)
		}
	}
}

// TestModuleErrors runs scripts that misuse k6/x/tpcc in-process: each error reaches the
// script, caught and logged, with the message naming the problem.
func TestModuleErrors(t *testing.T) {
	Install(nil)
	engine := pgwire.PostgresDriver().Name()
	cases := []struct{ name, call, want string }{
		{name: "run without a session or options", call: "tpcc.run()", want: "tpcc.run: no options given and no session prepared"},
		{name: "snapshot without a session", call: "tpcc.snapshot()", want: "tpcc.snapshot: no session prepared"},
		{name: "an unknown engine", call: "tpcc.run({engine: 'flatfile'})", want: `tpcc.run: option engine: unknown engine \"flatfile\"`},
		{name: "options that do not validate", call: "tpcc.run({engine: '" + engine + "', url: 'postgres://db/tpcc'})",
			want: "tpcc.run: --warehouses must be >= 1, got 0"},
		{name: "a database that is not there", call: "tpcc.run({engine: '" + engine + "', url: 'postgres://nobody:hunter2@127.0.0.1:1/tpcc?connect_timeout=5', warehouses: 1, duration: '1s'})",
			want: "tpcc.run: --url: cannot connect"},
	}
	for _, c := range cases {
		script := "import tpcc from '" + ModuleName + "'\nexport default function () {\n  try { " + c.call +
			"; console.log('no error') } catch (e) { console.log('caught: ' + e.message) }\n}"
		code, _, stderr := runK6(context.Background(), K6Invocation{Args: []string{"run", "--quiet", "--address=", "--summary-mode=disabled", "-"},
			Stdin: strings.NewReader(script)})
		if code != 0 || !strings.Contains(stderr, "caught: "+c.want) || strings.Contains(stderr, "hunter2") {
			t.Errorf("%s: exit code %d, want 0 with %q logged (no password); stderr:\n%s", c.name, code, "caught: "+c.want, stderr)
		}
	}

	// In the init context there is no VU state to run in: the script fails to initialise.
	code, _, stderr := runK6(context.Background(), K6Invocation{Args: []string{"run", "--quiet", "--address=", "-"},
		Stdin: strings.NewReader("import tpcc from '" + ModuleName + "'\ntpcc.run()\nexport default function () {}")})
	if code != 107 || !strings.Contains(stderr, "tpcc.run() must be called from the default function, not the init context") {
		t.Errorf("tpcc.run() in the init context: exit code %d, want 107 naming the problem; stderr:\n%s", code, stderr)
	}
}
