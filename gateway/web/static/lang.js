// The page's language: the patient's own choice, kept in this browser;
// else the one the gateway chose from the browser's Accept-Language, which
// it serves as <html lang>; else German. The switch names each language in
// itself, so that a patient who cannot read the current one finds theirs.
'use strict';

window.TerminLang = (function () {
  const KEY = 'termin.lang';
  const LOCALES = { de: 'de-DE', en: 'en-GB', tr: 'tr-TR' };
  // served is read before the page's script changes it.
  const served = document.documentElement.getAttribute('lang');

  function known(lang) { return Object.prototype.hasOwnProperty.call(LOCALES, lang); }

  function initial() {
    let kept = '';
    try { kept = localStorage.getItem(KEY); } catch (e) { kept = ''; }
    if (known(kept)) return kept;
    return known(served) ? served : 'de';
  }

  function remember(lang) {
    try { localStorage.setItem(KEY, lang); } catch (e) { /* kept for this visit only */ }
  }

  // locale is the Intl locale of a language's dates and times.
  function locale(lang) { return LOCALES[lang] || LOCALES.de; }

  function buttons() { return document.querySelectorAll('#lang [data-lang]'); }

  // mount calls choose with a language when its button is pressed.
  function mount(choose) {
    buttons().forEach(function (b) {
      b.addEventListener('click', function () { choose(b.getAttribute('data-lang')); });
    });
  }

  // mark shows which language is the current one.
  function mark(lang) {
    buttons().forEach(function (b) { b.setAttribute('aria-pressed', String(b.getAttribute('data-lang') === lang)); });
  }

  return { initial: initial, remember: remember, locale: locale, known: known, mount: mount, mark: mark };
})();
