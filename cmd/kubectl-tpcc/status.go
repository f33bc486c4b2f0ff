package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/report"
)

// liveEvery is how often status -w repeats a line whose only change is live figures.
const liveEvery = 15 * time.Second

func statusCommand(o *options) *cobra.Command {
	var watch bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "status [NAME]",
		Short: "A run's or a suite's phase, current step (elapsed, remaining, live tpmC and p90s) and steps so far; -w follows it until it ends; without NAME, every run and suite of the namespace (-A: of every namespace)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if watch {
					return withCode(exitUsage, "-w follows one run or suite: give its NAME")
				}
				return list(cmd.Context(), o)
			}
			return status(cmd.Context(), o, args[0], watch, timeout)
		},
	}
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "follow until the run or suite ends: a line per change, then the final status (exit 0 Succeeded, 7 Failed)")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "with -w: give up after this long (exit 6); 0 waits for ever")
	cmd.Flags().DurationVar(&o.poll, "interval", 5*time.Second, "with -w: how often to read the object")
	return cmd
}

// snapshot is one read of what status shows.
type snapshotOf struct {
	run     *benchv1.BenchmarkRun
	suite   *benchv1.BenchmarkSuite
	current *benchv1.BenchmarkRun // the suite's run under way
}

func (s snapshotOf) full(now time.Time) string {
	if s.run != nil {
		return runStatus(s.run, now)
	}
	return suiteStatus(s.suite, s.current, now)
}

func (s snapshotOf) line(now time.Time) string {
	if s.run != nil {
		return runLine(s.run, now)
	}
	return suiteLine(s.suite, s.current, now)
}

func (s snapshotOf) key() string {
	if s.run != nil {
		return runKey(s.run)
	}
	key := string(s.suite.Status.Phase) + "|" + s.suite.Status.Progress
	if s.current != nil {
		key += "|" + s.current.Name + "|" + runKey(s.current)
	}
	return key
}

func (s snapshotOf) phase() benchv1.Phase {
	if s.run != nil {
		return s.run.Status.Phase
	}
	return s.suite.Status.Phase
}

func status(ctx context.Context, o *options, name string, watch bool, timeout time.Duration) error {
	k, err := connect(o.config, o.all)
	if err != nil {
		return err
	}
	t, err := k.find(ctx, name)
	if err != nil {
		return err
	}
	read := func() (snapshotOf, error) {
		if t.run != nil {
			run, err := k.run(ctx, t.run.Namespace, t.run.Name)
			if err != nil {
				return snapshotOf{}, err
			}
			run, err = k.withStepDetail(ctx, run, false)
			return snapshotOf{run: run}, err
		}
		suite := &benchv1.BenchmarkSuite{}
		if err := k.c.Get(ctx, keyOf(t.suite.Namespace, t.suite.Name), suite); err != nil {
			return snapshotOf{}, apiError(err, "get", resSuites, t.suite.Namespace, t.suite.Name)
		}
		s := snapshotOf{suite: suite}
		if cur := currentRunName(suite); cur != "" {
			run, err := k.run(ctx, suite.Namespace, cur)
			if err != nil && codeOf(err) != exitNotFound {
				return s, err
			}
			s.current = run
		}
		return s, nil
	}
	s, err := read()
	if err != nil {
		return err
	}
	start, deadline := o.now(), time.Now().Add(timeout)
	if !watch || report.Final(s.phase()) {
		fmt.Fprint(o.stdout, s.full(start))
		return endCode(s, watch)
	}
	fmt.Fprintf(o.stdout, "following %s (every %s; Ctrl-C stops):\n", name, o.poll)
	lastKey, lastLine, lastPrint := "", "", time.Time{}
	for {
		now := o.now()
		line := s.line(now)
		if key := s.key(); key != lastKey || (line != lastLine && now.Sub(lastPrint) >= liveEvery) {
			fmt.Fprintf(o.stdout, "[%s] %s\n", clock(now.Sub(start)), line)
			lastKey, lastLine, lastPrint = key, line, now
		}
		if report.Final(s.phase()) {
			fmt.Fprintf(o.stdout, "\n%s", s.full(now))
			return endCode(s, true)
		}
		if timeout > 0 && time.Now().After(deadline) {
			return withCode(exitIncomplete, "%s did not end within --timeout %s (it is %s)", name, timeout, phaseOf(s.phase()))
		}
		select {
		case <-ctx.Done():
			return withCode(exitIncomplete, "stopped following %s: %v", name, ctx.Err())
		case <-time.After(o.poll):
		}
		if s, err = read(); err != nil {
			return err
		}
	}
}

// endCode: with -w, a run or suite that ended Failed exits 7.
func endCode(s snapshotOf, watch bool) error {
	if watch && s.phase() == benchv1.PhaseFailed {
		return withCode(exitRunFailed, "%s ended Failed", nameOf(s))
	}
	return nil
}

func nameOf(s snapshotOf) string {
	if s.run != nil {
		return "BenchmarkRun " + s.run.Namespace + "/" + s.run.Name
	}
	return "BenchmarkSuite " + s.suite.Namespace + "/" + s.suite.Name
}

func clock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%02d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}
