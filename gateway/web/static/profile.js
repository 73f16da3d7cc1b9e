// "My details": the patient's profile with consent per channel, the
// download of all data held about them, and erasure after a confirmation.
'use strict';

window.TerminProfile = (function () {
  const api = window.TerminApi;
  const T = window.Termin;
  const $ = function (id) { return document.getElementById(id); };
  let shown = null; // the profile as last read, for a change of language

  function open() {
    T.notice('');
    $('pf-erase-ask').hidden = true;
    T.show('profile');
    load();
  }

  // load reads the profile into the form. The form is busy (its fields
  // disabled) until then: typed into before the answer came, the answer
  // would overwrite what the patient typed.
  async function load() {
    busy(true);
    const r = await api.call('GET', '/api/patients/me');
    busy(false);
    if (r.status === 401) return T.expired();
    if (!r.ok || !r.body) return T.notice(T.problemText(r), true);
    fill(r.body);
  }

  function busy(on) {
    const form = $('profile-form');
    form.setAttribute('aria-busy', on ? 'true' : 'false');
    for (const el of form.elements) el.disabled = on;
  }

  function fill(p) {
    $('pf-name').value = p.name || '';
    $('pf-email').value = p.email || '';
    $('pf-phone').value = p.phone || '';
    // With nothing stored yet, messages would go in the page's language.
    $('pf-language').value = p.updatedAt ? p.language || 'de' : T.state.lang;
    $('pf-insurance').value = p.insurance || '';
    $('pf-consent-email').checked = !!(p.consent && p.consent.email);
    $('pf-consent-sms').checked = !!(p.consent && p.consent.sms);
    consentLines(p);
  }

  // consentLines says for each channel whether and since when consent holds.
  function consentLines(p) {
    shown = p;
    since('pf-consent-email-at', p.consent && p.consent.email, p.consentAt && p.consentAt.email);
    since('pf-consent-sms-at', p.consent && p.consent.sms, p.consentAt && p.consentAt.sms);
  }

  // since says when a channel's consent was last given or withdrawn. The
  // API gives no time for consent never given: that is "not given", not
  // a withdrawal.
  function since(id, given, at) {
    if (!at) return T.hint(id, T.t(given ? 'pfGiven' : 'pfNotGiven'));
    T.hint(id, T.t(given ? 'pfGivenAt' : 'pfWithdrawnAt', { when: T.whenOf(at) }));
  }

  // render writes the consent lines again in the page's language, leaving
  // the fields as the patient may have typed them.
  function render() {
    if (shown) consentLines(shown);
  }

  async function save(ev) {
    ev.preventDefault();
    const body = {
      name: $('pf-name').value.trim(), email: $('pf-email').value.trim(), phone: $('pf-phone').value.trim(),
      language: $('pf-language').value, insurance: $('pf-insurance').value,
      consent: { email: $('pf-consent-email').checked, sms: $('pf-consent-sms').checked }
    };
    const r = await api.call('PUT', '/api/patients/me', { body: body });
    if (r.status === 401) return T.expired();
    if (!r.ok || !r.body) return T.notice(T.problemText(r), true);
    fill(r.body);
    T.notice(T.t('pfSaved'));
  }

  // download fetches the export with the token (a link could not carry it)
  // and hands it to the browser as a file.
  async function download() {
    const r = await api.call('GET', '/api/patients/me/export');
    if (r.status === 401) return T.expired();
    if (!r.ok || !r.body) return T.notice(T.problemText(r), true);
    const url = URL.createObjectURL(new Blob([JSON.stringify(r.body, null, 2)], { type: 'application/json' }));
    const a = T.el('a', { href: url, download: 'termin-export.json' });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    T.notice(T.t('pfExported'));
  }

  async function erase() {
    const r = await api.call('DELETE', '/api/patients/me');
    if (r.status === 401) return T.expired();
    if (!r.ok) return T.notice(T.problemText(r), true);
    $('pf-erase-ask').hidden = true;
    fill({});
    T.notice(T.t('pfErased'));
    // The link to the provider's account ended with the data: signed in
    // further, the next request would make a new patient of it.
    if (window.TerminSignIn.provider()) api.signOut();
  }

  document.addEventListener('DOMContentLoaded', function () {
    $('profile-form').addEventListener('submit', save);
    $('pf-export').addEventListener('click', download);
    $('pf-erase').addEventListener('click', function () { $('pf-erase-ask').hidden = false; $('pf-erase-yes').focus(); });
    $('pf-erase-yes').addEventListener('click', erase);
  });

  return { open: open, render: render };
})();
