// The site's search worker: the theme's own (named in this script's query string, `?theme=`),
// with each query first normalised for the language of the index it searches. The theme
// lets a site replace its worker; this one only wraps it (tcguide/site/search.py sets it up).
//
// Why at search time: the theme appends a wildcard to every word of a query (so "recomp"
// finds "recompile" while one types), and lunr passes a wildcard word to the index as
// typed, through no stemmer. A word is found where it is a prefix of a word of the text,
// so a query longer than the stem of a word, "декоратора" or "가드가", misses the pages
// that say "декоратор" or "가드는". No change to the index can make a longer word the prefix
// of a shorter one; cutting the query down to its stem can, and the prefix match then finds
// every inflected form in the text, just as the stem typed alone does.
"use strict";

(function () {
  var QUERY = 2, SETUP = 0;  // the theme's message types (SearchMessageType)
  var langs = [];

  // Russian: lunr's Russian stemmer (Snowball), which the theme's worker loads for an index
  // whose language is "ru": "декоратора" and "декоратором" become "декоратор".
  function russian(word) {
    var lunr = self.lunr;
    if (!lunr || !lunr.ru || !/^[а-яё]+$/i.test(word)) return word;
    return lunr.ru.stemmer(new lunr.Token(word.toLowerCase())).toString() || word;
  }

  // Korean: lunr has no Korean stemmer. A noun takes its particle as a suffix ("가드가",
  // "가드를", "가드에서"); the common particles come off a word of Hangul syllables, the
  // longest first, where at least two syllables stay, so that a one-syllable stem is never
  // left to match everything ("속도" keeps its "도"). A two-syllable word ending in what looks
  // like a particle may lose it ("정확도" → "정확"): its prefix still finds it, among a few more.
  var PARTICLES = ["에서", "으로", "이", "가", "은", "는", "을", "를", "의", "에", "로", "와", "과", "도"];

  function korean(word) {
    if (!/^[가-힣]+$/.test(word)) return word;
    for (var i = 0; i < PARTICLES.length; i++) {
      var particle = PARTICLES[i];
      if (word.length - particle.length >= 2 && word.slice(-particle.length) === particle)
        return word.slice(0, -particle.length);
    }
    return word;
  }

  var normalisers = { ru: russian, ko: korean };

  // Only plain words are normalised: a word with the query syntax (+, -, ~, ^, *, :, quotes)
  // is left as typed.
  function normalise(query) {
    var fns = langs.map(function (lang) { return normalisers[lang]; }).filter(Boolean);
    if (!fns.length) return query;
    return query.split(/(\s+)/).map(function (word) {
      return fns.reduce(function (w, fn) { return fn(w); }, word);
    }).join("");
  }

  // The theme's worker listens for messages; hand it each query normalised.
  var listen = self.addEventListener;
  self.addEventListener = function (type, handler, options) {
    if (type !== "message") return listen.call(self, type, handler, options);
    return listen.call(self, type, function (event) {
      var message = event.data;
      if (message && message.type === SETUP) langs = message.data.config.lang || [];
      if (message && message.type === QUERY && typeof message.data === "string")
        message = { type: QUERY, data: normalise(message.data) };
      return handler({ data: message });
    }, options);
  };

  var theme = new URL(self.location.href).searchParams.get("theme") || "";
  if (!/^[\w.-]+\.js$/.test(theme)) throw new Error("search-query.js?theme= names no worker beside it");
  importScripts(theme);
})();
