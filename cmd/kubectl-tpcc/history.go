package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	benchv1 "github.com/tpcc-operator/tpcc-operator/api/v1alpha1"
	"github.com/tpcc-operator/tpcc-operator/internal/results"
)

func historyCommand(o *options) *cobra.Command {
	var rf resultsFlags
	var engine, selector, since, until, suite, name, format string
	var limit int
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Earlier results from the results database, the latest first (filters: engine, labels, time, suite, name)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != formatJSON {
				return withCode(exitUsage, "--output %q: want table or json", format)
			}
			f := results.Filter{Engine: engine, Suite: suite, Name: name, Limit: limit}
			if o.config.Namespace != nil && *o.config.Namespace != "" && !o.all {
				f.Namespace = *o.config.Namespace
			}
			var err error
			if f.Labels, err = results.ParseLabels(selector); err != nil {
				return withCode(exitUsage, "--selector: %v", err)
			}
			if f.Since, err = parseWhen(since, o.now()); err != nil {
				return withCode(exitUsage, "--since: %v", err)
			}
			if f.Until, err = parseWhen(until, o.now()); err != nil {
				return withCode(exitUsage, "--until: %v", err)
			}
			if limit < 1 {
				return withCode(exitUsage, "--limit must be at least 1, got %d", limit)
			}
			conn, err := o.openResults(cmd.Context(), &rf)
			if err != nil {
				return err
			}
			defer conn.Close()
			rows, err := results.History(cmd.Context(), conn.Conn, f)
			if err != nil {
				return resultsError(err)
			}
			if format == formatJSON {
				if rows == nil {
					rows = []results.HistoryRow{}
				}
				body, err := json.MarshalIndent(rows, "", "  ")
				if err != nil {
					return err
				}
				_, err = o.stdout.Write(append(body, '\n'))
				return err
			}
			if len(rows) == 0 {
				fmt.Fprintln(o.stderr, "no recorded run matches")
				return nil
			}
			w := tabwriter.NewWriter(o.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "CREATED\tNAMESPACE\tNAME\tENGINE\tPHASE\tSTEPS\tWAREHOUSES\tTPMC\tEFFICIENCY\tSUITE\tLABELS")
			for _, r := range rows {
				warehouses, tpmc, eff := "-", "-", "-"
				floor := benchv1.ResultBound(r.Bound).Floor()
				if r.Warehouses != nil {
					warehouses = benchv1.ResultBound(r.Bound).Warehouses(*r.Warehouses)
				}
				if r.TpmC != nil {
					tpmc = fmt.Sprintf("%.1f", *r.TpmC)
					if floor {
						tpmc = "≥ " + tpmc
					}
				}
				if r.Efficiency != nil {
					eff = fmt.Sprintf("%.2f%%", *r.Efficiency)
				}
				phase := r.Phase
				if r.Reason != "" && r.Phase != "Succeeded" {
					phase += " (" + r.Reason + ")"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.Created.UTC().Format("2006-01-02 15:04"), r.Namespace, r.Name, r.Engine,
					phase, r.Steps, warehouses, tpmc, eff, orDashString(r.Suite), orDashString(results.LabelString(r.Labels)))
			}
			return w.Flush()
		},
	}
	rf.register(cmd)
	cmd.Flags().StringVar(&engine, "engine", "", "only runs of this engine: PostgreSQL, CockroachDB or YDB")
	cmd.Flags().StringVarP(&selector, "selector", "l", "", "only runs carrying these labels, KEY=VALUE[,KEY=VALUE]")
	cmd.Flags().StringVar(&since, "since", "", "only runs created since: a duration ago (24h, 7d) or a time (2026-03-01, RFC 3339)")
	cmd.Flags().StringVar(&until, "until", "", "only runs created before: a duration ago or a time")
	cmd.Flags().StringVar(&suite, "suite", "", "only the runs of this suite")
	cmd.Flags().StringVar(&name, "name", "", "only runs of this name")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many runs")
	cmd.Flags().StringVarP(&format, "output", "o", "table", "table or json")
	return cmd
}

// parseWhen reads a point in time: a duration ago ("24h", "7d", "90m") or a date or RFC 3339 time.
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n >= 0 && fmt.Sprint(n) == days {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration ago (24h, 7d) nor a time (2006-01-02, RFC 3339)", s)
}

func orDashString(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
