#!/usr/bin/env bash
# Prints the fenced code block that follows the line `<!-- block: NAME -->` in a Markdown file
# (indented as a list item's or not; the fence's indentation is removed). Scripts run such blocks
# verbatim — hack/cluster/install.sh runs README's install commands — so the commands the docs show
# are the ones the demo and the e2e execute; docs/commands_test.go checks every named block exists.
#
# usage: hack/doc-block.sh FILE NAME
set -euo pipefail
file=${1:?usage: doc-block.sh FILE NAME}
name=${2:?usage: doc-block.sh FILE NAME}
block=$(awk -v marker="<!-- block: $name -->" '
  { line = $0; sub(/^[ \t]+/, "", line) }
  !found && line == marker { found = 1; next }
  found && !inside && line ~ /^```/ { inside = 1; match($0, /^[ \t]*/); indent = RLENGTH; next }
  found && !inside && line != "" { exit }
  inside && line ~ /^```/ { exit }
  inside { print substr($0, indent + 1) }
' "$file")
[ -n "$block" ] || { echo "doc-block: no block '$name' in $file" >&2; exit 1; }
printf '%s\n' "$block"
