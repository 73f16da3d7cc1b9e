#!/bin/sh
# The last line of `make test`, from the counts gotestsum hands its
# post-run command (subtests included), and the tests that failed once and
# passed when run again (gotestsum's rerun report, .test-reruns).
flaky=0
if [ -s .test-reruns ]; then
	flaky=$(awk -F'[:,] *' '{ split($2, r, " "); split($3, f, " "); if (f[1] < r[1]) n++ } END { print n + 0 }' .test-reruns)
fi
passed=$((TESTS_TOTAL - TESTS_FAILED - TESTS_SKIPPED))
if [ "${TESTS_ERRORS:-0}" -gt 0 ]; then
	echo "tests: ${TESTS_ERRORS} errors outside tests (a package that did not build, or output after its end: see above)"
fi
echo "tests: ${passed} passed, $((TESTS_FAILED - flaky)) failed, ${TESTS_SKIPPED} skipped"
if [ "$flaky" -gt 0 ]; then
	echo "tests: ${flaky} flaky, failed once and passed when run again (a defect to fix):"
	awk -F'[:,] *' '{ split($2, r, " "); split($3, f, " "); if (f[1] < r[1]) print "  " $0 }' .test-reruns
fi
rm -f .test-reruns
