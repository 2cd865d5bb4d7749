#!/usr/bin/env bash
# Commit the outputs that changed to BRANCH and open a pull request for it, or update the
# one already open; do nothing if no output changed. Needs GH_TOKEN (a GitHub App's token,
# so that CI runs on the pull request) and RUN_URL. REPORT, a Markdown file (the recapture
# report), goes into the pull request's body. usage: propose-outputs.sh BRANCH [REPORT]
set -euo pipefail
branch=$1
report=${2:-}
if [ -z "$(git status --porcelain -- 'snippets/*.out.json' 'snippets/**/*.out.json')" ]; then
  echo "outputs unchanged"
  exit 0
fi
title="Recaptured outputs"
git switch -C "$branch"
git add -- 'snippets/*.out.json' 'snippets/**/*.out.json'
git -c user.name="capture bot" -c user.email="capture-bot@users.noreply.github.com" \
  commit -q -m "$title" -m "Captured on GPU runners by $RUN_URL"
git push --force "https://x-access-token:${GH_TOKEN}@github.com/${GITHUB_REPOSITORY}.git" "HEAD:refs/heads/$branch"
body=$(mktemp)
echo "Outputs captured on GPU runners by $RUN_URL. Check them as you check code: every figure the prose quotes." > "$body"
if [ -n "$report" ] && [ -s "$report" ]; then
  printf '\n' >> "$body"
  cat -- "$report" >> "$body"
fi
if gh pr view "$branch" --json state --jq .state 2>/dev/null | grep -q OPEN; then
  gh pr edit "$branch" --body-file "$body"
else
  gh pr create --title "$title" --body-file "$body" --base main --head "$branch"
fi
