package system_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// apiSpec is openapi.yaml at the repository's root, loaded and checked once
// per test binary, with the router that finds a request's operation in it.
var apiSpec = sync.OnceValues(func() (*apiDocument, error) {
	_, here, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(here), "..", "openapi.yaml")
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", path, err)
	}
	doc.Servers = nil // the tests' gateways listen on free ports, not on the documented server
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("router of %s: %w", path, err)
	}
	return &apiDocument{doc: doc, router: router}, nil
})

type apiDocument struct {
	doc    *openapi3.T
	router routers.Router
}

// checkAPI validates one live answer of the gateway against openapi.yaml:
// its status must be documented for the operation, and its headers and body
// must match what the document says of that status. An answer for a path or
// method the document does not have must be a documented problem. Every
// request the end-to-end tests send through stack.do passes here, so the
// document cannot drift from what the service does.
func checkAPI(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	api, err := apiSpec()
	if err != nil {
		t.Errorf("openapi.yaml: %v", err)
		return
	}
	route, params, err := api.router.FindRoute(req)
	if err != nil {
		if err := api.checkProblem(status, header, body); err != nil {
			t.Errorf("%s %s → %d, an undocumented route: %v; body %s", req.Method, req.URL.Path, status, err, body)
		}
		return
	}
	key := answerKey(req, route.Path, status, header, body)
	if _, ok := matched.Load(key); ok {
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s → %d does not match openapi.yaml: %v; body %s", req.Method, req.URL.Path, status, err, body)
		return
	}
	remember(key)
}

// checkProblem checks an answer against the document's Problem schema.
func (a *apiDocument) checkProblem(status int, header http.Header, body []byte) error {
	if ct := header.Get("Content-Type"); ct != "application/problem+json" {
		return fmt.Errorf("Content-Type %q, want application/problem+json", ct)
	}
	var v any
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&v); err != nil {
		return err
	}
	if p, _ := v.(map[string]any); p["status"] != float64(status) {
		return fmt.Errorf("problem status %v, answered %d", p["status"], status)
	}
	return a.doc.Components.Schemas["Problem"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// TestOpenAPIDocumentLoads fails when openapi.yaml does not load as OpenAPI
// 3.1 or has an error, even if no other test reaches the validator.
func TestOpenAPIDocumentLoads(t *testing.T) {
	t.Parallel()
	api, err := apiSpec()
	if err != nil {
		t.Fatal(err)
	}
	if !api.doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi.yaml declares %q, want 3.1", api.doc.OpenAPI)
	}
}
