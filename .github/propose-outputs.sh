#!/usr/bin/env bash
# Open a pull request with the captured outputs that changed; do nothing if none did.
# usage: .github/propose-outputs.sh BRANCH TITLE
set -euo pipefail
branch=$1 title=$2
if [ -z "$(git status --porcelain -- 'snippets/**/*.out.json' 'snippets/*.out.json')" ]; then
  echo "outputs unchanged"
  exit 0
fi
git switch -c "$branch"
git add -- 'snippets/**/*.out.json' 'snippets/*.out.json'
git -c user.name="capture bot" -c user.email="capture-bot@users.noreply.github.com" commit -m "$title"
git push origin "$branch"
gh pr create --title "$title" --body "Outputs captured on a GPU runner by workflow run ${GITHUB_RUN_ID:-?}." \
  --base main --head "$branch"
