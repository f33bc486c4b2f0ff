package main

import (
	"fmt"
	"os"
)

// Output formats of report and compare.
const (
	formatMarkdown = "md"
	formatHTML     = "html"
	formatJSON     = "json"
)

func checkFormat(format string) error {
	switch format {
	case formatMarkdown, formatHTML, formatJSON:
		return nil
	}
	return withCode(exitUsage, "--output %q: want html, md or json", format)
}

// write puts out on stdout, or in file (-f).
func (o *options) write(file string, out []byte) error {
	if file == "" || file == "-" {
		_, err := o.stdout.Write(out)
		return err
	}
	if err := os.WriteFile(file, out, 0o644); err != nil {
		return withCode(exitError, "--filename: %v", err)
	}
	fmt.Fprintf(o.stderr, "wrote %s (%d bytes)\n", file, len(out))
	return nil
}
