// The search index, fetched once per browser session (tab) instead of on every page.
//
// Without instant navigation (which would keep the theme's scripts alive across pages, but
// swaps only parts of a page, which the notebook pages' own styles and scripts do not survive),
// the theme loads its language's index with an XMLHttpRequest on every page it opens. This
// script runs just before the theme's (tcguide/site/search.py puts it there): it keeps the
// first answer in sessionStorage, and answers the theme's later requests for that index from
// the kept copy, so the network sees one request per language and session. The copy is kept
// under the index's version, which the build writes into this script's tag (data-index): a
// page of a newer build fetches its index afresh. Where storage is refused (full, disabled),
// the theme fetches the index as it always did.
"use strict";

(function () {
  var tag = document.currentScript;
  var version = tag && tag.getAttribute("data-index");
  var config = document.getElementById("__config");
  var storage;
  try { storage = window.sessionStorage; } catch (e) { return; }  // storage disabled
  if (!version || !config || !storage) return;
  var base;
  try { base = JSON.parse(config.textContent).base; } catch (e) { return; }
  // the address the theme asks for: search/search_index.json under the page's base
  var index = new URL("search/search_index.json", new URL(base, location.href)).href;
  var KEY = "tcguide-search:";
  var key = KEY + index;

  function kept() {
    try {
      return storage.getItem(key + "#version") === version ? storage.getItem(key) : null;
    } catch (e) { return null; }
  }

  function keep(text) {
    function put() {
      storage.setItem(key, text);
      storage.setItem(key + "#version", version);
    }
    try { put(); } catch (e) {
      try {  // full: drop the other indexes kept (another language's), then try once more
        for (var i = storage.length - 1; i >= 0; i--) {
          var name = storage.key(i);
          if (name && name.indexOf(KEY) === 0) storage.removeItem(name);
        }
        put();
      } catch (e2) { try { storage.removeItem(key); } catch (e3) { /* no copy kept */ } }
    }
  }

  // The response as the request asked for it (the theme asks for a Blob).
  function body(xhr, text) {
    switch (xhr.responseType) {
      case "blob": return new Blob([text], { type: "application/json" });
      case "json": return JSON.parse(text);
      case "arraybuffer": return new TextEncoder().encode(text).buffer;
      default: return text;
    }
  }

  function answer(xhr, text) {
    var fields = { readyState: 4, status: 200, statusText: "OK", responseURL: index, response: body(xhr, text) };
    if (xhr.responseType === "" || xhr.responseType === "text") fields.responseText = text;
    Object.keys(fields).forEach(function (name) {
      Object.defineProperty(xhr, name, { value: fields[name], configurable: true });
    });
    setTimeout(function () {  // asynchronously, as a real answer comes
      ["readystatechange", "load", "loadend"].forEach(function (type) {
        xhr.dispatchEvent(type === "readystatechange" ? new Event(type) : new ProgressEvent(type));
      });
    }, 0);
  }

  function text(xhr) {
    switch (xhr.responseType) {
      case "blob": return xhr.response.text();
      case "json": return Promise.resolve(JSON.stringify(xhr.response));
      case "arraybuffer": return Promise.resolve(new TextDecoder().decode(xhr.response));
      default: return Promise.resolve(xhr.responseText);
    }
  }

  var open = XMLHttpRequest.prototype.open, send = XMLHttpRequest.prototype.send;
  var asked = new WeakSet();
  function store() {
    var xhr = this;
    if (asked.has(xhr) && xhr.status >= 200 && xhr.status < 300) text(xhr).then(keep, function () {});
  }
  XMLHttpRequest.prototype.open = function (method, url) {
    var ours = String(method).toUpperCase() === "GET" && new URL(String(url), location.href).href === index;
    if (ours) asked.add(this); else asked.delete(this);
    // listening from here, before the theme's own listener: that one ends the request (abort), which
    // leaves no response for a listener after it
    if (ours) this.addEventListener("load", store);
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var copy = asked.has(this) ? kept() : null;
    if (copy === null) return send.apply(this, arguments);
    this.removeEventListener("load", store);
    return answer(this, copy);
  };
})();
