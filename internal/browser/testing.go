package browser

import (
	"errors"
	"os"
	"testing"
)

// Require returns the Chromium binary, or ends the test: with a failure under CI (where .ci/run
// installs Debian's chromium, so its absence is a broken CI), with a skip that says how to install
// it elsewhere.
func Require(t testing.TB) string {
	t.Helper()
	bin, err := Find()
	if err == nil {
		return bin
	}
	if os.Getenv("CI") != "" || !errors.Is(err, ErrNoChromium) {
		t.Fatal(err)
	}
	t.Skip(err)
	return ""
}
