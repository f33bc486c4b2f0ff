// Package measure is the pure measurement logic of a run's steps: the time series a step's client
// pods deliver (series.go) and the resource and I/O samples beside them (io.go), the record of a
// step from its merged snapshots (step.go), the window of a fault and what it measured
// (faults.go), the windows of a sustained phase (sustain.go), and the resource that bounded a
// result (bottleneck.go). Nothing here talks to Kubernetes: the run reconciler feeds it what it
// read and writes what it returns.
package measure
