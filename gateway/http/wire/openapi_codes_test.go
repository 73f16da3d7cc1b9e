package wire

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestEveryProblemCodeIsInTheOpenAPIDocument keeps openapi.yaml's list of
// problem codes in step with the one table the gateway answers from: a code
// added to the table and not to the document fails here, even before an
// end-to-end test meets it.
func TestEveryProblemCodeIsInTheOpenAPIDocument(t *testing.T) {
	doc, err := os.ReadFile("../../../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?s)\n    Code:\n.*?enum:\n((?:        - [A-Z_]+\n)+)`).FindSubmatch(doc)
	if block == nil {
		t.Fatal("openapi.yaml has no components.schemas.Code enum")
	}
	var listed []string
	for _, m := range regexp.MustCompile(`- ([A-Z_]+)`).FindAllSubmatch(block[1], -1) {
		listed = append(listed, string(m[1]))
	}
	for code := range problems {
		if !slices.Contains(listed, string(code)) {
			t.Errorf("code %s is answered but not listed in openapi.yaml's Code", code)
		}
	}
}
