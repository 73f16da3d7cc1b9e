// The practice page's language and clock: its texts in the chosen language
// (remembered as termin.lang, the key the patient page uses too; on a first
// visit the browser's languages decide), and days and times in the
// practice's zone, written as the language writes them, whatever the
// device's zone.
'use strict';

window.TerminPraxisLocale = (function () {
  const LANG = 'termin.lang';
  const ZONE = 'Europe/Berlin';
  const LOCALES = { de: 'de-DE', en: 'en-GB', tr: 'tr-TR' };
  const TEXTS = window.TerminPraxisTexts;
  let lang = first();

  function first() {
    const kept = localStorage.getItem(LANG);
    if (TEXTS[kept]) return kept;
    const asked = (navigator.languages || [navigator.language || '']).map(function (l) { return String(l).slice(0, 2).toLowerCase(); });
    return asked.find(function (l) { return TEXTS[l]; }) || 'de';
  }

  function set(l) {
    lang = l;
    localStorage.setItem(LANG, l);
  }

  // t is the text of key, its {placeholders} filled from vars.
  function t(key, vars) {
    let s = TEXTS[lang][key];
    if (s === undefined) s = TEXTS.de[key] || key;
    Object.keys(vars || {}).forEach(function (k) { s = s.split('{' + k + '}').join(String(vars[k])); });
    return s;
  }

  function has(key) {
    return TEXTS[lang][key] !== undefined;
  }

  function time(iso) {
    return new Intl.DateTimeFormat(LOCALES[lang], { timeZone: ZONE, hour: '2-digit', minute: '2-digit' }).format(new Date(iso));
  }

  // date writes a day (YYYY-MM-DD, already the practice's) long or short.
  function date(day, long) {
    const o = long ? { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' } : { weekday: 'short', day: 'numeric', month: 'short' };
    o.timeZone = 'UTC';
    return new Intl.DateTimeFormat(LOCALES[lang], o).format(new Date(day + 'T12:00:00Z'));
  }

  function addDays(day, n) {
    const d = new Date(day + 'T12:00:00Z');
    d.setUTCDate(d.getUTCDate() + n);
    return d.toISOString().slice(0, 10);
  }

  // today is the practice's date now.
  function today() {
    return new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
  }

  return { lang: function () { return lang; }, set: set, t: t, has: has, time: time, date: date, addDays: addDays, today: today };
}());
