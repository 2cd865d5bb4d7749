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

// Where a number comes from is the guide's signature: a glued figure, a quoted one, a claim and
// an output's provenance take keyboard focus (and so a tap), and show their tooltip as a popover
// (data-tip; the title stays for pointers and assistive technology).
document.querySelectorAll(".tcg-glue, .tcg-quote, .tcg-claim, .tcg-provenance").forEach(function (el) {
  if (!el.hasAttribute("tabindex")) el.setAttribute("tabindex", "0");
  if (el.title && !el.dataset.tip) el.dataset.tip = el.title;
});

// Line numbers beside code are links to themselves: useful to copy, hundreds of useless tab stops.
document.querySelectorAll(".linenodiv a, .linenos a, a[href^='#__codelineno']").forEach(function (a) {
  a.setAttribute("tabindex", "-1");
});

// A torch log's prefixes (time, process, file) are shortened; one tab stop per log shows them all,
// instead of one per line.
document.querySelectorAll("pre.tcg-log").forEach(function (log) {
  var prefixes = log.querySelectorAll(".tcg-log-prefix");
  if (!prefixes.length) return;
  prefixes.forEach(function (prefix) { prefix.setAttribute("tabindex", "-1"); });
  log.setAttribute("tabindex", "0");
});

// The language menu's items are each in their own language: say so, for screen readers and fonts.
document.querySelectorAll("a.md-select__link[hreflang]").forEach(function (link) {
  if (!link.hasAttribute("lang")) link.setAttribute("lang", link.getAttribute("hreflang"));
});

// A folded output is copied whole: the theme's copy button copies the text of the closest element
// with data-copy, so the folded lines and the lines in view both give all of it.
document.querySelectorAll("details.tcg-fold").forEach(function (fold) {
  var head = fold.querySelector("pre.tcg-head > code");
  var tail = fold.nextElementSibling;
  var code = tail && tail.matches("pre.tcg-tail") && tail.querySelector(":scope > code");
  if (!head || !code) return;
  var whole = head.textContent + code.textContent;
  fold.setAttribute("data-copy", whole);
  tail.setAttribute("data-copy", whole);
});

// A table a snippet printed is shown as a table; its copy button, the theme's own (its clipboard and
// its "copied" message), copies the text as printed (the table's data-copy).
(function () {
  var config = document.getElementById("__config");
  var words = config ? (JSON.parse(config.textContent).translations || {})["clipboard.copy"] : "";
  document.querySelectorAll(".tcg-table[data-copy]").forEach(function (table, i) {
    if (!table.id) table.id = "tcg-table-" + i;
    var button = document.createElement("button");
    button.className = "md-code__button tcg-table-copy";
    button.setAttribute("data-md-type", "copy");
    button.setAttribute("data-clipboard-target", "#" + table.id);
    button.title = words || "Copy";
    button.setAttribute("aria-label", button.title);
    table.appendChild(button);
  });
})();

// On a notebook page, an output that holds a table a snippet printed (a rule of dash runs under its
// header) keeps its columns: it scrolls inside itself instead of wrapping its rows into each other.
document.querySelectorAll(".jupyter-wrapper .jp-OutputArea-output pre").forEach(function (pre) {
  if (/^ *-{2,}(?: {2,}-{2,})+ *$/m.test(pre.textContent)) {
    pre.classList.add("tcg-columns");
    pre.setAttribute("tabindex", "0");  // a region that scrolls is reachable by keyboard
  }
});
