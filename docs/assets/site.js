// What the guide adds to the theme in the browser.

// The theme's search dialog has no accessible name (axe: aria-dialog-name); give it the
// name of its search field, which the theme already words in the page's language.
document.querySelectorAll(".md-search[role=dialog]").forEach(function (dialog) {
  var field = dialog.querySelector("input.md-search__input");
  if (field && !dialog.hasAttribute("aria-label")) {
    dialog.setAttribute("aria-label", field.getAttribute("aria-label") || field.placeholder);
  }
});

// Switching language keeps the reader's section: every language's headings carry the
// English ids, so the same #section exists on the other language's page. (The theme's
// own handler would drop it.)
document.addEventListener("click", function (event) {
  var link = event.target.closest && event.target.closest("a.md-select__link[hreflang]");
  if (!link || !location.hash || event.metaKey || event.ctrlKey || event.shiftKey) return;
  event.preventDefault();
  event.stopImmediatePropagation();
  location.href = link.href.split("#")[0] + location.hash;
}, true);
