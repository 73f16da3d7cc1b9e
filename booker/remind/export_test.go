package remind

// ScanSQL is the scan's statement, for a test of its plan.
const ScanSQL = scanSQL
