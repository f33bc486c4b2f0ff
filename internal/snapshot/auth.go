package snapshot

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// The control endpoints (start, stop, snapshot, and every endpoint added to NewHandler later)
// change or reveal a measurement: a stop from anyone who can reach a client pod closes its
// measured interval early, and the step would be recorded as if it had run its full length. So a
// client started with a token serves them only to requests that present it, as
// "Authorization: Bearer <token>"; the operator makes one random token per run, keeps it in a
// Secret owned by the run, mounts it into the client pods as a file (never a literal in the pod
// spec) and presents it on every request. Only PathHealth answers without it: the kubelet's
// readiness probe cannot present a secret without it being written into the pod spec, and the
// health reply says nothing but "serving".

// MinTokenLength is the shortest control token a client accepts: 16 characters of a random
// token are at least 64 bits (hex), beyond guessing over HTTP. The operator's are 64 (NewToken).
const MinTokenLength = 16

// tokenBytes is the randomness of a NewToken: 256 bits.
const tokenBytes = 32

// NewToken returns a fresh random control token: 32 bytes from crypto/rand, hex-encoded.
func NewToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating a control token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// CheckToken says why a token cannot be used: empty, too short, or holding characters an HTTP
// header cannot carry verbatim (only printable ASCII without spaces is accepted). The error never
// quotes the token.
func CheckToken(token string) error {
	if token == "" {
		return errors.New("the control token is empty")
	}
	if len(token) < MinTokenLength {
		return fmt.Errorf("the control token has %d characters, want at least %d (e.g. 32 random bytes, hex-encoded)", len(token), MinTokenLength)
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("the control token has a character at position %d that is not printable ASCII", i+1)
		}
	}
	return nil
}

// ReadTokenFile reads a control token from a file (one line; surrounding whitespace, such as a
// final newline, is ignored) and checks it.
func ReadTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	token := strings.TrimSpace(string(b))
	if err := CheckToken(token); err != nil {
		return "", err
	}
	return token, nil
}

// RequireToken serves next only to requests that present token as "Authorization: Bearer
// <token>"; any other request but those to PathHealth gets 401 with a JSON error and a
// WWW-Authenticate header, and reaches no endpoint, so it changes nothing. It wraps the whole
// handler rather than each endpoint: an endpoint added to NewHandler later is covered without
// further work. The comparison takes the same time whatever the presented value (both sides are
// hashed to a fixed length first, so not even the token's length leaks). It panics on a token
// CheckToken refuses: the callers check it where it is read.
func RequireToken(next http.Handler, token string) http.Handler {
	if err := CheckToken(token); err != nil {
		panic("snapshot.RequireToken: " + err.Error())
	}
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathHealth {
			next.ServeHTTP(w, r)
			return
		}
		presented, ok := bearer(r.Header.Get("Authorization"))
		got := sha256.Sum256([]byte(presented))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="tpcc client"`)
			writeError(w, http.StatusUnauthorized, "unauthorized: "+r.URL.Path+" needs the run's control token (Authorization: Bearer <token>)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearer extracts the credentials of an "Authorization: Bearer <token>" header (the scheme is
// case-insensitive, RFC 9110 §11.1).
func bearer(header string) (string, bool) {
	const scheme = "bearer "
	if len(header) <= len(scheme) || !strings.EqualFold(header[:len(scheme)], scheme) {
		return "", false
	}
	return strings.TrimSpace(header[len(scheme):]), true
}

// tokenKey is the context key of the control token the Go client presents.
type tokenKey struct{}

// WithToken returns a context under which Fetch, FetchIntervalsAfter, Start, Stop — every request
// of this package's client — present token as "Authorization: Bearer <token>". The token travels
// in the context so that everything the operator does with a step's pods in one reconcile (the
// reads, the start, the stop, and endpoints added later) carries it without threading it through
// each call; a context without one sends no Authorization header (a client on loopback without
// a token).
func WithToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// tokenFrom is the token WithToken put into ctx, or "".
func tokenFrom(ctx context.Context) string {
	token, _ := ctx.Value(tokenKey{}).(string)
	return token
}
