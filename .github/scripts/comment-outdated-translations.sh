#!/usr/bin/env bash
# Put REPORT (Markdown: the translations a change makes outdated) on pull request PR as one comment:
# update the comment this script posted before (found by its first line), or post one, but post
# none only to say that nothing is outdated. Needs GH_TOKEN and GITHUB_REPOSITORY.
# usage: comment-outdated-translations.sh PR REPORT
set -euo pipefail
pr=$1
report=$2
marker="<!-- translations outdated by this change -->"
body=$(mktemp)
{ echo "$marker"; cat -- "$report"; } > "$body"
existing=$(gh api --paginate "repos/$GITHUB_REPOSITORY/issues/$pr/comments" \
  --jq ".[] | select(.body | startswith(\"$marker\")) | .id" | head -n 1)
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$GITHUB_REPOSITORY/issues/comments/$existing" -F "body=@$body" > /dev/null
  echo "updated comment $existing"
elif grep -q '^No translation is outdated' -- "$report"; then
  echo "no translation is outdated, and there is no comment to update"
else
  gh api --method POST "repos/$GITHUB_REPOSITORY/issues/$pr/comments" -F "body=@$body" > /dev/null
  echo "posted a comment"
fi
