// Sign-in of both pages. With the gateway's OpenID provider (signin.json
// names it) the pages sign in there with Authorization Code and PKCE (S256)
// through oidc-client-ts: the tokens come from the token endpoint, never in
// an address, stay in this tab's sessionStorage, and the access token is
// renewed with the refresh token before it expires. Without a provider a
// page takes a pasted token instead.
'use strict';

window.TerminSignIn = (function () {
  // RENEW_LEAD is how long before its expiry a token is renewed: a minute,
  // or a quarter of a short token's life.
  const RENEW_LEAD_S = 60;
  const RETRY_MS = 5000;
  let mgr = null;
  let user = null;
  let pastedKey = '';
  let pasted = '';
  let timer = 0;
  const renewed = [];

  async function config() {
    try {
      const res = await fetch('/assets/signin.json', { cache: 'no-store', credentials: 'omit' });
      return res.ok ? await res.json() : {};
    } catch (e) {
      return {};
    }
  }

  // start sets sign-in up for the page at path and finishes a sign-in the
  // provider sent the browser back from. It answers {provider, token,
  // error}: token is '' when nobody is signed in.
  async function start(path, key) {
    pastedKey = key;
    const c = await config();
    if (!c.issuer || !c.clientId || !window.oidc) {
      pasted = sessionStorage.getItem(key) || '';
      return { provider: false, token: pasted, error: '' };
    }
    const base = location.origin + path;
    const settings = {
      authority: c.issuer, client_id: c.clientId, redirect_uri: base, post_logout_redirect_uri: base,
      response_type: 'code', scope: c.scope || 'openid profile email offline_access',
      userStore: new oidc.WebStorageStateStore({ store: window.sessionStorage }),
      stateStore: new oidc.WebStorageStateStore({ store: window.sessionStorage }),
      automaticSilentRenew: false, monitorSession: false, loadUserInfo: false
    };
    if (c.metadata) settings.metadata = c.metadata;
    mgr = new oidc.UserManager(settings);
    let error = '';
    const q = new URLSearchParams(location.search);
    if (q.has('state') && (q.has('code') || q.has('error'))) {
      try {
        user = await mgr.signinRedirectCallback();
      } catch (e) {
        error = 'signinFailed';
      }
      history.replaceState(null, '', path);
    } else {
      user = await mgr.getUser();
    }
    if (user && user.expired) await renew();
    if (user) schedule();
    return { provider: true, token: token(), error: error };
  }

  // token is the access token to send; one past its expiry too, while its
  // renewal is under way: the gateway's leeway may still take it, and its
  // 401 says when not.
  function token() {
    if (!mgr) return pasted;
    return user ? user.access_token : '';
  }

  // signIn goes to the provider's sign-in; it returns only if it cannot.
  function signIn() {
    return mgr.signinRedirect();
  }

  // paste keeps a pasted token, for a gateway without a provider.
  function paste(tok) {
    pasted = tok;
    sessionStorage.setItem(pastedKey, tok);
  }

  // drop forgets the token here (it was refused), without leaving the page.
  async function drop() {
    clearTimeout(timer);
    user = null;
    pasted = '';
    sessionStorage.removeItem(pastedKey);
    if (mgr) await mgr.removeUser();
  }

  // signOut forgets the token and, with a provider, ends the session there
  // too: the browser goes to its end_session_endpoint and comes back.
  async function signOut() {
    const u = user;
    await drop();
    if (mgr && u) await mgr.signoutRedirect({ id_token_hint: u.id_token });
  }

  function schedule() {
    clearTimeout(timer);
    const left = Math.max(user.expires_in || 0, 0);
    const lead = Math.min(RENEW_LEAD_S, left / 4);
    timer = setTimeout(renew, Math.max(left - lead, 1) * 1000);
  }

  // renew gets a new access token with the refresh token; a failure is
  // tried again while the old token lives, then the page is signed out.
  async function renew() {
    try {
      user = await mgr.signinSilent();
    } catch (e) {
      if (user && !user.expired) {
        timer = setTimeout(renew, RETRY_MS);
        return;
      }
      user = null;
    }
    if (user) schedule();
    renewed.forEach(function (fn) { fn(token()); });
  }

  // onRenewed calls fn with the new token after each renewal ('' when it
  // failed and the session is over).
  function onRenewed(fn) {
    renewed.push(fn);
  }

  return {
    start: start, token: token, signIn: signIn, paste: paste, drop: drop, signOut: signOut, onRenewed: onRenewed,
    provider: function () { return !!mgr; }
  };
})();
