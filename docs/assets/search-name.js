// The theme's search dialog has no accessible name (axe: aria-dialog-name); give it the
// name of its search field, which the theme already words in the page's language.
document.querySelectorAll(".md-search[role=dialog]").forEach(function (dialog) {
  var field = dialog.querySelector("input.md-search__input");
  if (field && !dialog.hasAttribute("aria-label")) {
    dialog.setAttribute("aria-label", field.getAttribute("aria-label") || field.placeholder);
  }
});
