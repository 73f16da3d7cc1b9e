#!/bin/sh
# The last line of `make test`, from the counts gotestsum hands its
# post-run command (subtests included).
passed=$((TESTS_TOTAL - TESTS_FAILED - TESTS_SKIPPED))
if [ "${TESTS_ERRORS:-0}" -gt 0 ]; then
	echo "tests: ${TESTS_ERRORS} errors outside tests (a package that did not build, or output after its end: see above)"
fi
echo "tests: ${passed} passed, ${TESTS_FAILED} failed, ${TESTS_SKIPPED} skipped"
