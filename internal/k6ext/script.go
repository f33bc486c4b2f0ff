package k6ext

import _ "embed"

// DefaultScript is the k6 script `tpcc run` executes (scripts/default.js).
//
//go:embed scripts/default.js
var DefaultScript []byte
