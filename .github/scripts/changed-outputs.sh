#!/usr/bin/env bash
# Copy the captured outputs that changed in this checkout (new or modified) into DEST,
# keeping their paths, for the collecting job to merge. usage: changed-outputs.sh DEST
set -euo pipefail
dest=$1
mkdir -p "$dest"
git ls-files -z --modified --others --exclude-standard -- 'snippets/*.out.json' 'snippets/**/*.out.json' |
  while IFS= read -r -d '' file; do
    mkdir -p "$dest/$(dirname "$file")"
    cp -- "$file" "$dest/$file"
  done
echo "$(find "$dest" -name '*.out.json' | wc -l) changed output(s) collected"
