package devidp

import (
	"context"
	"html/template"
	"net/http"
	"sync"
)

// Paths of the provider's own pages.
const (
	loginPath     = "/login"
	signedOutPath = "/signed-out"
	sessionCookie = "devidp_session"
)

// login is the provider's sign-in form: the demo people to choose from, no
// password (a development provider asks none). A browser that signed in
// before and has not signed out is signed in again without the form, as at
// a real provider.
type login struct {
	store    *storage
	callback func(ctx context.Context, requestID string) string
	people   []Person
}

var formPage = template.Must(template.New("form").Parse(`<!doctype html>
<html lang="de"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Anmelden – Entwicklungs-Anmeldedienst</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
label{display:block;margin:.5rem 0;padding:.6rem;border:1px solid #bbb;border-radius:.4rem}
button{font-size:1rem;padding:.6rem 1.2rem;margin-top:1rem}.note{color:#555}</style></head>
<body><main>
<h1>Anmelden</h1>
<p class="note">Entwicklungs-Anmeldedienst von <code>make run</code>: Wählen Sie, als wer Sie sich anmelden. Ein Passwort gibt es hier nicht.</p>
{{if .Error}}<p role="alert">{{.Error}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="authRequestID" value="{{.ID}}">
<fieldset><legend>Person</legend>
{{range $i, $p := .People}}<label><input type="radio" name="subject" value="{{$p.Subject}}" {{if eq $i 0}}checked{{end}}> {{$p.Label}}</label>
{{end}}</fieldset>
<button type="submit" id="anmelden">Anmelden</button>
</form></main></body></html>`))

var signedOutPage = []byte(`<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Abgemeldet</title></head>
<body><main><h1>Sie sind abgemeldet.</h1></main></body></html>`)

func pageHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.Header().Set("Cache-Control", "no-store")
}

// form shows the people, or signs a browser with a session in at once.
func (l *login) form(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("authRequestID")
	if c, err := r.Cookie(sessionCookie); err == nil {
		if subject, ok := l.store.sessions.subject(c.Value); ok && l.store.complete(id, subject) == nil {
			http.Redirect(w, r, l.callback(r.Context(), id), http.StatusFound)
			return
		}
	}
	l.render(w, id, "")
}

func (l *login) render(w http.ResponseWriter, id, problem string) {
	pageHeaders(w)
	_ = formPage.Execute(w, struct {
		ID, Error string
		People    []Person
	}{id, problem, l.people})
}

// signIn completes the auth request as the chosen person and starts the
// browser's session.
func (l *login) signIn(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "Das Formular ist unlesbar.", http.StatusBadRequest)
		return
	}
	id, subject := r.PostForm.Get("authRequestID"), r.PostForm.Get("subject")
	if _, ok := l.store.person(subject); !ok {
		l.render(w, id, "Bitte wählen Sie eine Person.")
		return
	}
	if err := l.store.complete(id, subject); err != nil {
		l.render(w, id, "Die Anmeldung ist abgelaufen. Bitte gehen Sie zurück zur Seite und melden Sie sich erneut an.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: l.store.sessions.start(subject), Path: "/",
		HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, l.callback(r.Context(), id), http.StatusSeeOther)
}

func (l *login) signedOut(w http.ResponseWriter, _ *http.Request) {
	pageHeaders(w)
	_, _ = w.Write(signedOutPage)
}

// sessions are the browsers signed in: session id → subject.
type sessions struct {
	mu sync.Mutex
	of map[string]string
}

func newSessions() *sessions { return &sessions{of: map[string]string{}} }

func (s *sessions) start(subject string) string {
	id := randomID()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.of[id] = subject
	return id
}

func (s *sessions) subject(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub, ok := s.of[id]
	return sub, ok
}

// end ends every session of subject: signing out at the provider.
func (s *sessions) end(subject string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, sub := range s.of {
		if sub == subject {
			delete(s.of, id)
		}
	}
}

func (s *sessions) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.of)
}
